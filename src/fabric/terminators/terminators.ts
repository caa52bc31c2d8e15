// A router's terminator messages (ziti controller/handler_edge_ctrl/create_terminator_v2.go and handler_ctrl/
// remove_terminators.go in v1.1.8): CreateTerminatorV2 answered with its result, RemoveTerminators with a Result.
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import type { Clock } from '../../lib/clock.js';
import type { Store } from '../../store/store.js';
import { deleteTerminators } from '../../store/queries/terminators.js';
import { routerNameById } from '../../store/queries/edge-sessions.js';
import { ContentType as ChannelType, Header, type Message } from '../channel/message.js';
import { encodeBool, encodeString } from '../channel/header-codecs.js';
import { ContentType as CtrlType, RemoveTerminatorsRequestSchema } from '../messages/gen/ctrl_pb.js';
import {
  ContentType as EdgeType,
  CreateTerminatorResult,
  CreateTerminatorV2RequestSchema,
  CreateTerminatorV2ResponseSchema,
  HealthEventRequestSchema,
  UpdateTerminatorRequestSchema,
} from '../messages/gen/edge_ctrl_pb.js';
import { EdgeRequestError } from '../edge-requests.js';
import { edgeErrorMessage } from '../circuits/circuit-messages.js';
import { checkHealthEvent, updateEdgeTerminator } from './update-terminator.js';
import type { ControlChannel, FabricLogger, FabricMetrics } from '../circuits/circuit-deps.js';
import type { Strategies } from '../circuits/strategies.js';
import { createEdgeTerminator } from './create-terminator.js';
import { removeInvalidTerminators, validateRouterTerminators } from './validate-terminators.js';
import { recordTerminatorChanges } from '../../events/terminator-events.js';

export interface TerminatorsOptions {
  store: Store;
  clock: Clock;
  logger: FabricLogger;
  strategies: Strategies;
  metrics?: FabricMetrics;
}

/** channel.NewResult: content type 2, header 2 the outcome, the body its message. */
const result = (success: boolean, message: string) => ({
  contentType: ChannelType.result,
  headers: new Map([[Header.resultSuccess, encodeBool(success)]]),
  body: encodeString(message),
});

export class Terminators {
  constructor(private readonly options: TerminatorsOptions) {}

  attach(routerId: string, channel: ControlChannel & { close(reason: string): void }): void {
    channel.handle(EdgeType.CreateTerminatorV2RequestType, (message) => this.#create(routerId, channel, message));
    channel.handle(CtrlType.RemoveTerminatorsRequestType, (message) => this.#remove(routerId, channel, message));
    channel.handle(EdgeType.UpdateTerminatorRequestType, (message) => this.#update(routerId, channel, message));
    channel.handle(EdgeType.HealthEventType, (message) => this.#health(routerId, message));
    channel.handle(
      CtrlType.ValidateTerminatorsV2ResponseType,
      async (message) => void (await removeInvalidTerminators(this.options, routerId, message)),
    );
    validateRouterTerminators(this.options, routerId, channel).catch((error: unknown) =>
      this.options.logger.error({ routerId, err: error }, 'could not ask router to validate its terminators'),
    );
  }

  async #create(
    routerId: string,
    channel: ControlChannel & { close(reason: string): void },
    message: Message,
  ): Promise<void> {
    const { store, clock, logger, metrics } = this.options;
    const request = fromBinary(CreateTerminatorV2RequestSchema, message.body);
    // Upstream closes a channel whose router it cannot find (it was deleted while connected).
    if ((await store.read((db) => routerNameById(db, routerId))) === undefined) {
      logger.error({ routerId }, 'could not find router, closing its channel');
      channel.close('router not found');
      return;
    }
    const outcome = await createEdgeTerminator(store, routerId, request, clock());
    const response = create(CreateTerminatorV2ResponseSchema, {
      terminatorId: outcome.terminatorId,
      result: outcome.result,
      msg: outcome.message,
    });
    channel.reply(message, {
      contentType: EdgeType.CreateTerminatorV2ResponseType,
      headers: new Map(),
      body: toBinary(CreateTerminatorV2ResponseSchema, response),
    });
    const fields = {
      routerId,
      terminatorId: outcome.terminatorId,
      service: outcome.checked?.service.name,
      serviceId: outcome.checked?.service.id,
      hostId: outcome.checked?.session.identityId,
    };
    if (outcome.result !== CreateTerminatorResult.Success) {
      logger.warn(
        { ...fields, result: CreateTerminatorResult[outcome.result], reason: outcome.message },
        'terminator not created: the bind was refused',
      );
    } else if (outcome.created) {
      metrics?.terminatorsCreated(1);
      logger.info(fields, 'created terminator');
    } else {
      logger.info(fields, 'terminator already exists');
    }
  }

  async #update(routerId: string, channel: ControlChannel, message: Message): Promise<void> {
    const { store, clock, logger } = this.options;
    const request = fromBinary(UpdateTerminatorRequestSchema, message.body);
    const fields = {
      routerId,
      terminatorId: request.terminatorId,
      cost: request.updateCost ? request.cost : undefined,
      precedence: request.updatePrecedence ? request.precedence : undefined,
    };
    try {
      const serviceId = await updateEdgeTerminator(store, routerId, request, clock());
      channel.reply(message, {
        contentType: EdgeType.UpdateTerminatorResponseType,
        headers: new Map(),
        body: new Uint8Array(0),
      });
      logger.info({ ...fields, serviceId }, 'updated terminator');
    } catch (error) {
      if (!(error instanceof EdgeRequestError)) throw error;
      channel.reply(message, edgeErrorMessage(error.message, error.code));
      logger.warn({ ...fields, reason: error.message }, 'terminator not updated: the request was refused');
    }
  }

  async #health(routerId: string, message: Message): Promise<void> {
    const request = fromBinary(HealthEventRequestSchema, message.body);
    try {
      const serviceId = await checkHealthEvent(this.options.store, request, this.options.clock());
      this.options.logger.debug(
        { routerId, serviceId, checkPassed: request.checkPassed },
        'terminator health check reported',
      );
    } catch (error) {
      if (!(error instanceof EdgeRequestError)) throw error;
      this.options.logger.warn({ routerId, reason: error.message }, 'health event refused');
    }
  }

  /**
   * Deletes the terminators the router names, as upstream's DeleteBatch, but only its own: a router cannot remove
   * another router's terminators here.
   */
  async #remove(routerId: string, channel: ControlChannel, message: Message): Promise<void> {
    const { store, logger, strategies, metrics } = this.options;
    const request = fromBinary(RemoveTerminatorsRequestSchema, message.body);
    try {
      const removed = await store.transaction(async (tx) =>
        // issue 31: entityChange, fabric.terminators
        recordTerminatorChanges(tx, 'deleted', await deleteTerminators(tx, request.terminatorIds, routerId), routerId),
      );
      for (const row of removed) strategies.forget(row.id);
      if (removed.length > 0) metrics?.terminatorsRemoved(removed.length);
      logger.info({ routerId, terminatorIds: request.terminatorIds, removed: removed.length }, 'removed terminators');
      channel.reply(message, result(true, ''));
    } catch (error) {
      logger.error({ routerId, err: error }, 'could not remove terminators');
      channel.reply(message, result(false, error instanceof Error ? error.message : String(error)));
    }
  }
}
