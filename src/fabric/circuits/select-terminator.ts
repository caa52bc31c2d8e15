// Which terminator a dial goes to (ziti controller/network/network.go selectPath in v1.1.8): the service's
// terminators of the asked instance whose router is online and reachable from the dialling router over links (issue
// 24), ranked with the cost of the path to their router added and handed to the service's strategy. A terminator
// whose router has no path from the dialling one is skipped, as upstream's path search failing.
import { pathCostForTerminator, type Path } from '../links/paths.js';
import { rankTerminators, type CandidateTerminator, type Strategies, type Strategy } from './strategies.js';
import type { PeerData } from './circuit-messages.js';
import { mustAt, mustGet } from '../../lib/collections.js';

/** Why no terminator was chosen (upstream's CircuitFailureCause names, for metrics and logs). */
export type SelectFailureCause = 'NO_TERMINATORS' | 'NO_ONLINE_TERMINATORS' | 'NO_PATH' | 'INVALID_STRATEGY';

export class SelectFailure extends Error {
  constructor(
    readonly reason: SelectFailureCause,
    message: string,
  ) {
    super(message);
    this.name = 'SelectFailure';
  }
}

export interface SelectableTerminator extends CandidateTerminator {
  routerId: string;
  instanceId: string;
}

export interface SelectRequest<T extends SelectableTerminator> {
  serviceId: string;
  terminatorStrategy: string;
  instanceId: string;
  terminators: readonly T[];
  sourceRouterId: string;
  isRouterOnline: (routerId: string) => boolean;
  /** The cheapest path from the dialling router to this router, undefined when there is none. */
  pathTo: (routerId: string) => Path | undefined;
  dialPeerData: PeerData;
}

export interface SelectedTerminator<T> {
  terminator: T;
  strategy: Strategy;
  peerData: PeerData;
  /** From the dialling router to the terminator's. */
  path: Path;
}

/** errorz.MultipleErrors' text: one error alone, else numbered. */
function multipleErrors(errors: string[]): string {
  return errors.length === 1
    ? mustAt(errors, 0)
    : `multiple errors occurred${errors.map((error, index) => ` ${index}: ${error}`).join('')}`;
}

export function selectTerminator<T extends SelectableTerminator>(
  strategies: Strategies,
  request: SelectRequest<T>,
): SelectedTerminator<T> {
  const candidates: T[] = [];
  const paths = new Map<T, Path>();
  const errors: string[] = [];
  let hasOfflineRouters = false;
  let pathError = false;
  for (const terminator of request.terminators) {
    if (terminator.instanceId !== request.instanceId) continue;
    if (!request.isRouterOnline(terminator.routerId)) {
      errors.push(
        `router with id=${terminator.routerId} on terminator with id=${terminator.id} for service name=${request.serviceId} is not online`,
      );
      hasOfflineRouters = true;
      continue;
    }
    const path = request.pathTo(terminator.routerId);
    if (!path) {
      errors.push(`can't route from ${request.sourceRouterId} -> ${terminator.routerId}`);
      pathError = true;
    } else {
      candidates.push(terminator);
      paths.set(terminator, path);
    }
  }
  if (request.terminators.length === 0)
    throw new SelectFailure('NO_TERMINATORS', `service ${request.serviceId} has no terminators`);
  if (candidates.length === 0) {
    if (pathError) throw new SelectFailure('NO_PATH', multipleErrors(errors));
    if (hasOfflineRouters)
      throw new SelectFailure(
        'NO_ONLINE_TERMINATORS',
        `service ${request.serviceId} has no online terminators for instanceId ${request.instanceId}`,
      );
    throw new SelectFailure(
      'NO_TERMINATORS',
      `service ${request.serviceId} has no terminators for instanceId ${request.instanceId}`,
    );
  }
  const strategy = strategies.get(request.terminatorStrategy);
  if (!strategy)
    throw new SelectFailure('INVALID_STRATEGY', `terminatorStrategy with name ${request.terminatorStrategy} not found`);
  const { chosen, peerData } = strategy.select(
    rankTerminators(candidates, strategies.dynamic, (terminator) => pathCostForTerminator(mustGet(paths, terminator))),
    request.dialPeerData,
  );
  return { terminator: chosen, strategy, peerData, path: mustGet(paths, chosen) };
}
