// When a router connects, its terminators older than a few seconds are checked with it (ziti controller/network/
// router_messaging.go ValidateTerminatorsV2 in v1.1.8): terminators outlive a router's absence (the grace for a
// router that reconnects), and those it no longer hosts (it restarted, its SDKs went while it was away) are deleted
// when it says so. Younger terminators were just made on this connection.
import { create, toBinary } from '@bufbuild/protobuf';
import { formatTimestamp, type Clock } from '../../lib/clock.js';
import type { Store } from '../../store/store.js';
import { deleteTerminators, terminatorsOfRouterBefore } from '../../store/queries/terminators.js';
import {
  ContentType as CtrlType,
  TerminatorInvalidReason,
  ValidateTerminatorsV2RequestSchema,
  type ValidateTerminatorsV2Response,
} from '../messages/gen/ctrl_pb.js';
import type { ControlChannel, FabricLogger } from '../ctrl/router-channel.js';
import type { FabricMetrics } from '../ctrl/fabric-metrics.js';
import type { Strategies } from '../circuits/strategies.js';
import { recordTerminatorChanges } from '../../events/terminator-events.js';

/** Upstream leaves out terminators created in the last 5 s. */
const VALIDATE_AFTER_MS = 5_000;

export interface ValidationDeps {
  store: Store;
  clock: Clock;
  logger: FabricLogger;
  strategies: Strategies;
  metrics?: FabricMetrics | undefined;
}

/** Asks the router about its terminators; answers how many were asked about. */
export async function validateRouterTerminators(
  deps: ValidationDeps,
  routerId: string,
  channel: ControlChannel,
): Promise<number> {
  const before = formatTimestamp(new Date(deps.clock().getTime() - VALIDATE_AFTER_MS));
  const rows = await deps.store.read((db) => terminatorsOfRouterBefore(db, routerId, before));
  if (rows.length === 0) return 0;
  const request = create(ValidateTerminatorsV2RequestSchema, {
    terminators: rows.map((row) => ({ id: row.id, binding: row.binding, address: row.address, marker: 0n })),
    fixInvalid: true,
  });
  // Its answer is a reply, but may take the router up to 30 s: it is served by the 1042 handler, not awaited.
  channel.send({
    contentType: CtrlType.ValidateTerminatorsV2RequestType,
    headers: new Map(),
    body: toBinary(ValidateTerminatorsV2RequestSchema, request),
  });
  deps.logger.info({ routerId, terminators: rows.length }, 'asked router to validate its terminators');
  return rows.length;
}

/** The router's answer: the terminators it called invalid are deleted (only its own). */
export async function removeInvalidTerminators(
  deps: ValidationDeps,
  routerId: string,
  response: ValidateTerminatorsV2Response,
): Promise<string[]> {
  const invalid = Object.entries(response.states).filter(([, state]) => !state.valid);
  if (invalid.length === 0) return [];
  const removed = await deps.store.transaction(async (tx) =>
    recordTerminatorChanges(
      tx,
      'deleted',
      await deleteTerminators(
        tx,
        invalid.map(([id]) => id),
        routerId,
      ),
      routerId,
    ),
  );
  for (const row of removed) deps.strategies.forget(row.id);
  if (removed.length > 0) deps.metrics?.terminatorsRemoved(removed.length);
  for (const [id, state] of invalid) {
    deps.logger.info(
      { routerId, terminatorId: id, reason: TerminatorInvalidReason[state.reason], detail: state.detail },
      'terminator deleted: its router no longer hosts it',
    );
  }
  return removed.map((row) => row.id);
}
