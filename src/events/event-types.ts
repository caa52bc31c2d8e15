// The events upstream v1.1.8 emits, as the JSON objects its handlers write (ziti controller/event/*.go): field names,
// their order (Go marshals a struct's fields in declaration order) and which may be absent (`omitempty`) or null (a
// nil slice or map). Timestamps are Go's RFC 3339 with the fraction's trailing zeros dropped (goJsonTime); durations
// are Go's int64 nanoseconds.

export const Namespaces = {
  circuits: 'fabric.circuits',
  links: 'fabric.links',
  routers: 'fabric.routers',
  terminators: 'fabric.terminators',
  usage: 'fabric.usage',
  metrics: 'metrics',
  // eslint-disable-next-line storage/no-storage-words -- upstream's event namespace, not a table
  services: 'services',
  entityChange: 'entityChange',
  apiSessions: 'edge.apiSessions',
  sessions: 'edge.sessions',
  entityCounts: 'edge.entityCounts',
  cluster: 'fabric.cluster',
} as const;

export type Namespace = (typeof Namespaces)[keyof typeof Namespaces];

export const CircuitEventTypes = ['created', 'pathUpdated', 'deleted', 'failed'] as const;
export type CircuitEventType = (typeof CircuitEventTypes)[number];

/** event.CircuitPath: a nil slice is written as null (a one-router path has no links). */
export interface CircuitPath {
  nodes: string[] | null;
  links: string[] | null;
  ingress_id: string;
  egress_id: string;
  initiator_local_addr?: string;
  initiator_remote_addr?: string;
  terminator_local_addr?: string;
  terminator_remote_addr?: string;
}

export interface CircuitEvent {
  namespace: 'fabric.circuits';
  version: 2;
  event_type: CircuitEventType;
  circuit_id: string;
  timestamp: string;
  client_id: string;
  service_id: string;
  terminator_id: string;
  instance_id: string;
  creation_timespan?: number;
  path: CircuitPath;
  link_count: number;
  path_cost?: number;
  failure_cause?: string;
  duration?: number;
  tags: Record<string, string> | null;
}

export type LinkEventType =
  'dialed' | 'fault' | 'duplicate' | 'connected' | 'routerLinkNew' | 'routerLinkKnown' | 'routerLinkDisconnectedDest';

export interface LinkEvent {
  namespace: 'fabric.links';
  event_type: LinkEventType;
  timestamp: string;
  link_id: string;
  src_router_id: string;
  dst_router_id: string;
  protocol: string;
  dial_address: string;
  cost: number;
  connections?: { id: string; local_addr: string; remote_addr: string }[];
}

export interface RouterEvent {
  namespace: 'fabric.routers';
  event_type: 'router-online' | 'router-offline';
  timestamp: string;
  router_id: string;
  router_online: boolean;
}

export type TerminatorEventType = 'created' | 'updated' | 'deleted' | 'router-online' | 'router-offline';

export interface TerminatorEvent {
  namespace: 'fabric.terminators';
  event_type: TerminatorEventType;
  timestamp: string;
  service_id: string;
  terminator_id: string;
  router_id: string;
  host_id: string;
  router_online: boolean;
  precedence: string;
  static_cost: number;
  dynamic_cost: number;
  total_terminators: number;
  usable_default_terminators: number;
  usable_required_terminators: number;
}

export interface UsageEventV2 {
  namespace: 'fabric.usage';
  version: 2;
  event_type: string;
  source_id: string;
  circuit_id: string;
  usage: number;
  interval_start_utc: number;
  interval_length: number;
  tags: Record<string, string> | null;
}

export interface UsageEventV3 {
  namespace: 'fabric.usage';
  version: 3;
  source_id: string;
  circuit_id: string;
  usage: Record<string, number>;
  interval_start_utc: number;
  interval_length: number;
  tags: Record<string, string> | null;
}

export interface MetricsEvent {
  metric_type: 'intValue' | 'floatValue' | 'meter' | 'histogram' | 'timer';
  namespace: 'metrics';
  source_id: string;
  source_entity_id?: string;
  version: 3;
  timestamp: string;
  metric: string;
  metrics: Record<string, number>;
  tags?: Record<string, string>;
  source_event_id: string;
}

/** event.ServiceEvent: upstream writes namespace `service.events` though subscriptions name `services`. */
export interface ServiceEvent {
  namespace: 'service.events';
  version: 2;
  event_type: string;
  service_id: string;
  terminator_id: string;
  count: number;
  interval_start_utc: number;
  interval_length: number;
}

export type EntityChangeEventType = 'created' | 'updated' | 'deleted' | 'committed';

export interface EntityChangeEvent {
  namespace: 'entityChange';
  eventId: string;
  eventType: EntityChangeEventType;
  timestamp: string;
  metadata?: Record<string, unknown>;
  entityType?: string;
  isParentEvent?: boolean;
  initialState?: Record<string, unknown> | null;
  finalState?: Record<string, unknown> | null;
}

export interface ApiSessionEvent {
  namespace: 'edge.apiSessions';
  event_type: 'created' | 'deleted';
  id: string;
  timestamp: string;
  token: string;
  identity_id: string;
  ip_address: string;
}

export interface SessionEvent {
  namespace: 'edge.sessions';
  event_type: 'created' | 'deleted';
  session_type: string;
  id: string;
  timestamp: string;
  token: string;
  api_session_id: string;
  identity_id: string;
  service_id: string;
}

export interface EntityCountEvent {
  namespace: 'edge.entityCounts';
  timestamp: string;
  counts: Record<string, number> | null;
  error: string;
}

export type ZitiEvent =
  | CircuitEvent
  | LinkEvent
  | RouterEvent
  | TerminatorEvent
  | UsageEventV2
  | UsageEventV3
  | MetricsEvent
  | ServiceEvent
  | EntityChangeEvent
  | ApiSessionEvent
  | SessionEvent
  | EntityCountEvent;

/**
 * The name upstream's formatters give each kind (events/formatter.go GetEventType): what the management channel's
 * stream (`ziti fabric stream events`) labels an event with.
 */
export function formatterEventType(event: ZitiEvent): string {
  switch (event.namespace) {
    case 'fabric.circuits':
      return 'circuit';
    case 'fabric.links':
      return 'link';
    case 'fabric.routers':
      return 'router';
    case 'fabric.terminators':
      return 'terminator';
    case 'fabric.usage':
      return event.version === 3 ? 'usage.v3' : 'usage';
    case 'metrics':
      return 'metrics';
    case 'service.events':
      return 'service';
    case 'entityChange':
      return 'entity.change';
    case 'edge.apiSessions':
      return 'apiSession';
    case 'edge.sessions':
      return 'session';
    case 'edge.entityCounts':
      return 'entityCount';
  }
}

/**
 * Go's time.Time JSON (RFC 3339 with nanoseconds, trailing zeros dropped) of a UTC instant; `nanos`, the fraction of
 * its second in nanoseconds where it is known finer than a Date holds (a protobuf Timestamp's).
 */
export function goJsonTime(date: Date, nanos = date.getUTCMilliseconds() * 1_000_000): string {
  const iso = date.toISOString();
  if (nanos === 0) return `${iso.slice(0, 19)}Z`;
  return `${iso.slice(0, 19)}.${String(nanos).padStart(9, '0').replace(/0+$/, '')}Z`;
}

/** A Go time.Duration as JSON: int64 nanoseconds. */
export const goDurationNs = (ms: number): number => Math.round(ms * 1_000_000);
