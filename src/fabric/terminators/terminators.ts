// A router's terminator messages (ziti controller/handler_edge_ctrl/create_terminator_v2.go, update_terminator.go,
// health_event.go and handler_ctrl/remove_terminators.go in v1.1.8), served from the router-message table
// (fabric/router-messages.ts): CreateTerminatorV2 answered with its result, RemoveTerminators with a Result.
import { create, toBinary } from '@bufbuild/protobuf';
import type { Clock } from '../../lib/clock.js';
import type { Store } from '../../store/store.js';
import { deleteTerminators } from '../../store/queries/terminators.js';
import { routerNameById } from '../../store/queries/edge-sessions.js';
import type { RemoveTerminatorsRequest, ValidateTerminatorsV2Response } from '../messages/gen/ctrl_pb.js';
import {
  ContentType as EdgeType,
  CreateTerminatorResult,
  CreateTerminatorV2ResponseSchema,
  type CreateTerminatorV2Request,
  type HealthEventRequest,
  type UpdateTerminatorRequest,
} from '../messages/gen/edge_ctrl_pb.js';
import { checkHealthEvent, updateEdgeTerminator } from './update-terminator.js';
import { resultMessage, type ControlChannel, type FabricLogger, type Outgoing } from '../ctrl/router-channel.js';
import type { FabricMetrics } from '../ctrl/fabric-metrics.js';
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

export class Terminators {
  constructor(private readonly options: TerminatorsOptions) {}

  /** A router connected: its terminators older than a few seconds are checked with it. */
  attached(routerId: string, channel: ControlChannel): void {
    validateRouterTerminators(this.options, routerId, channel).catch((error: unknown) =>
      this.options.logger.error({ routerId, err: error }, 'could not ask router to validate its terminators'),
    );
  }

  /** CreateTerminatorV2 (20222 → 20223). */
  async create(
    routerId: string,
    channel: ControlChannel,
    request: CreateTerminatorV2Request,
  ): Promise<Outgoing | void> {
    const { store, clock, logger, metrics } = this.options;
    // Upstream closes a channel whose router it cannot find (it was deleted while connected).
    if ((await store.read((db) => routerNameById(db, routerId))) === undefined) {
      logger.error({ routerId }, 'could not find router, closing its channel');
      channel.close('router not found');
      return;
    }
    const outcome = await createEdgeTerminator(store, routerId, request, clock());
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
    const response = create(CreateTerminatorV2ResponseSchema, {
      terminatorId: outcome.terminatorId,
      result: outcome.result,
      msg: outcome.message,
    });
    return {
      contentType: EdgeType.CreateTerminatorV2ResponseType,
      headers: new Map(),
      body: toBinary(CreateTerminatorV2ResponseSchema, response),
    };
  }

  /** UpdateTerminator (20224 → 20225; a refusal is an edge error). */
  async update(routerId: string, request: UpdateTerminatorRequest): Promise<Outgoing> {
    const { store, clock, logger } = this.options;
    const serviceId = await updateEdgeTerminator(store, routerId, request, clock());
    logger.info(
      {
        routerId,
        terminatorId: request.terminatorId,
        serviceId,
        cost: request.updateCost ? request.cost : undefined,
        precedence: request.updatePrecedence ? request.precedence : undefined,
      },
      'updated terminator',
    );
    return { contentType: EdgeType.UpdateTerminatorResponseType, headers: new Map(), body: new Uint8Array(0) };
  }

  /** HealthEvent (20226): checked as upstream checks it, then only logged (upstream acts on none). */
  async health(routerId: string, request: HealthEventRequest): Promise<void> {
    const serviceId = await checkHealthEvent(this.options.store, request, this.options.clock());
    this.options.logger.debug(
      { routerId, serviceId, checkPassed: request.checkPassed },
      'terminator health check reported',
    );
  }

  /** ValidateTerminatorsV2Response (1042): the terminators the router called invalid are deleted. */
  async validated(routerId: string, response: ValidateTerminatorsV2Response): Promise<void> {
    await this.removeInvalid(routerId, response);
  }

  /** Deletes the router's terminators its answer calls invalid; answers the ids deleted. */
  removeInvalid(routerId: string, response: ValidateTerminatorsV2Response): Promise<string[]> {
    return removeInvalidTerminators(this.options, routerId, response);
  }

  /**
   * RemoveTerminators (1038): deletes the terminators the router names, as upstream's DeleteBatch, but only its own: a router cannot remove
   * another router's terminators here.
   */
  async remove(routerId: string, request: RemoveTerminatorsRequest): Promise<Outgoing> {
    const { store, logger, strategies, metrics } = this.options;
    const removed = await store.transaction(async (tx) =>
      recordTerminatorChanges(tx, 'deleted', await deleteTerminators(tx, request.terminatorIds, routerId), routerId),
    );
    for (const row of removed) strategies.forget(row.id);
    if (removed.length > 0) metrics?.terminatorsRemoved(removed.length);
    logger.info({ routerId, terminatorIds: request.terminatorIds, removed: removed.length }, 'removed terminators');
    return resultMessage(true, '');
  }
}
