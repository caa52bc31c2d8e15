// `ziti fabric validate router-links` and `validate router-sdk-terminators` (upstream network.go ValidateLinks /
// ValidateRouterLinks, model/router_manager.go ValidateRouterSdkTerminators): each router the filter selects is asked,
// ten at a time, for its `links` or `sdk-terminators` inspection (InspectRequest 1013, wherever its channel is held),
// and its view is compared with the controller's; one RouterLinkDetails (10105) or RouterSdkTerminatorsDetails
// (10108) per router goes back to the CLI, after it has been told how many routers to expect.
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { Store } from '../../store/store.js';
import { terminatorsOfRouterWithBinding } from '../../store/queries/terminators.js';
import {
  LinkState,
  TerminatorState,
  type RouterLinkDetailSchema,
  type RouterLinkDetailsSchema,
  type RouterSdkTerminatorDetailSchema,
  type RouterSdkTerminatorsDetailsSchema,
} from '../messages/gen/mgmt_pb.js';
import type { RouteMessenger } from '../circuits/reroute.js';
import type { LinkSummary } from '../network-views.js';
import { askRouter } from './inspections.js';

export type RouterLinkDetails = MessageInitShape<typeof RouterLinkDetailsSchema>;
export type RouterSdkTerminatorsDetails = MessageInitShape<typeof RouterSdkTerminatorsDetailsSchema>;

export interface RouterValidationDeps {
  store: Store;
  messenger: Pick<RouteMessenger, 'request'>;
  /** The routers the filter selects (the REST list's filter language; every match, not a page). */
  selectRouters(filter: string): Promise<{ id: string; name: string }[]>;
  /** The routers connected to any process of the cluster. */
  connectedRouterIds(): Promise<ReadonlySet<string>>;
  /** Every link the controller knows. */
  links(): Promise<readonly LinkSummary[]>;
}

interface Router {
  id: string;
  name: string;
}

/** Upstream's semaphore: ten routers asked at once. */
const AT_ONCE = 10;
/** Upstream gives a router a minute to answer. */
const ROUTER_TIMEOUT_MS = 60_000;

export function validateRouterLinks(
  deps: RouterValidationDeps,
  filter: string,
  report: (detail: RouterLinkDetails) => void,
): Promise<{ count: number; run: () => Promise<void> }> {
  return validateEachRouter(deps, filter, {
    check: async (router, connected) => report(await routerLinks(deps, router, connected)),
    offline: (router) => report(linksError(router, 'router not connected')),
  });
}

export function validateRouterSdkTerminators(
  deps: RouterValidationDeps,
  filter: string,
  report: (detail: RouterSdkTerminatorsDetails) => void,
): Promise<{ count: number; run: () => Promise<void> }> {
  return validateEachRouter(deps, filter, {
    check: async (router) => report(await sdkTerminators(deps, router)),
    offline: (router) => report(sdkError(router, 'router not connected')),
  });
}

/**
 * The routers the filter selects (their count answers the request at once), and a run that checks each connected one
 * and reports each other as not connected.
 */
async function validateEachRouter(
  deps: RouterValidationDeps,
  filter: string,
  per: {
    check: (router: Router, connected: ReadonlySet<string>) => Promise<void>;
    offline: (router: Router) => void;
  },
): Promise<{ count: number; run: () => Promise<void> }> {
  const routers = await deps.selectRouters(filter);
  const run = async () => {
    const connected = await deps.connectedRouterIds();
    await forEachRouter(routers, connected, (router) => per.check(router, connected), per.offline);
  };
  return { count: routers.length, run };
}

async function forEachRouter(
  routers: readonly Router[],
  connected: ReadonlySet<string>,
  check: (router: Router) => Promise<void>,
  offline: (router: Router) => void,
): Promise<void> {
  const queue = routers.filter((router) => connected.has(router.id));
  for (const router of routers) if (!connected.has(router.id)) offline(router);
  const worker = async () => {
    for (let router = queue.shift(); router; router = queue.shift()) await check(router);
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, queue.length) }, worker));
}

/** The router's inspection of one value, parsed; an Error naming what went wrong otherwise (upstream's messages). */
async function inspected(deps: RouterValidationDeps, router: Router, name: string, what: string): Promise<unknown> {
  const response = await askRouter(deps.messenger, router.id, [name], ROUTER_TIMEOUT_MS);
  const value = response.values.find((entry) => entry.name === name);
  if (value) return JSON.parse(value.value);
  if (response.errors.length > 0) throw new Error(response.errors.join(','));
  throw new Error(`no ${what} details returned from router`);
}

interface RouterLinkView {
  id: string;
  dest: string;
  dialed: boolean;
}

async function routerLinks(deps: RouterValidationDeps, router: Router, connected: ReadonlySet<string>) {
  let reported: RouterLinkView[];
  try {
    const result = (await inspected(deps, router, 'links', 'link')) as { links?: RouterLinkView[] | null } | null;
    reported = result?.links ?? [];
  } catch (error) {
    return linksError(router, error instanceof Error ? error.message : String(error));
  }
  const known = new Map((await deps.links()).map((link) => [link.id, link]));
  const details: MessageInitShape<typeof RouterLinkDetailSchema>[] = [];
  for (const link of reported) {
    const destConnected = connected.has(link.dest);
    const isKnown = known.delete(link.id);
    details.push({
      linkId: link.id,
      routerState: LinkState.LinkEstablished,
      destRouterId: link.dest,
      dialed: link.dialed,
      destConnected,
      ctrlState: isKnown ? LinkState.LinkEstablished : LinkState.LinkUnknown,
      isValid: isKnown ? destConnected : !destConnected,
    });
  }
  for (const link of known.values()) {
    const dialed = link.sourceRouterId === router.id;
    if (!dialed && link.destRouterId !== router.id) continue;
    const dest = dialed ? link.destRouterId : link.sourceRouterId;
    details.push({
      linkId: link.id,
      ctrlState: LinkState.LinkEstablished,
      destConnected: connected.has(dest),
      routerState: LinkState.LinkUnknown,
      isValid: false,
      destRouterId: dest,
      dialed,
    });
  }
  return { routerId: router.id, routerName: router.name, validateSuccess: true, linkDetails: details };
}

interface SdkTerminatorView {
  id: string;
  state: string;
  establishActive: boolean;
  createTime: string;
  lastAttempt: string;
}

async function sdkTerminators(deps: RouterValidationDeps, router: Router): Promise<RouterSdkTerminatorsDetails> {
  let entries: SdkTerminatorView[];
  try {
    const result = (await inspected(deps, router, 'sdk-terminators', 'terminator')) as {
      entries?: SdkTerminatorView[] | null;
    } | null;
    entries = result?.entries ?? [];
  } catch (error) {
    return sdkError(router, error instanceof Error ? error.message : String(error));
  }
  const rows = await deps.store.read((db) => terminatorsOfRouterWithBinding(db, router.id, 'edge'));
  const ours = new Set(rows.map((row) => row.id));
  const details = entries.map((entry): MessageInitShape<typeof RouterSdkTerminatorDetailSchema> => {
    const known = ours.delete(entry.id);
    return {
      terminatorId: entry.id,
      routerState: entry.state,
      isValid: known && entry.state === 'established',
      operationActive: entry.establishActive,
      createTime: entry.createTime,
      lastAttempt: entry.lastAttempt,
      ctrlState: known ? TerminatorState.Valid : TerminatorState.Unknown,
    };
  });
  for (const id of ours)
    details.push({ terminatorId: id, ctrlState: TerminatorState.Valid, routerState: 'unknown', isValid: false });
  return { routerId: router.id, routerName: router.name, validateSuccess: true, details };
}

function linksError(router: Router, message: string): RouterLinkDetails {
  return { routerId: router.id, routerName: router.name, validateSuccess: false, message };
}

function sdkError(router: Router, message: string): RouterSdkTerminatorsDetails {
  return { routerId: router.id, routerName: router.name, validateSuccess: false, message };
}
