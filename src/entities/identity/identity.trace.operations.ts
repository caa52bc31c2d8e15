// `PUT /identities/{id}/trace`: data-flow tracing of an identity's paths, kept in the store (upstream keeps it in one
// process's memory: ziti controller/internal/routes/identity_router.go updateTracing) until it expires.
import { randomUUID } from 'node:crypto';
import { ApiError } from '../../errors/api-error.js';
import { formatTimestamp } from '../../lib/clock.js';
import { parseGoDuration } from '../../lib/go-format.js';
import { envelope } from '../../http/envelope.js';
import type { OperationHandler, OperationTable } from '../../http/operation.js';
import { requireEntity } from '../../crud/entity-writes.js';
import { deleteIdentityTrace, saveIdentityTrace } from '../../store/queries/identities.js';
import { identity } from './identity.definition.js';

/** The channels upstream knows (ziti common/logcontext); others select nothing, as there. */
const channelNames = ['selectPath', 'establishPath'];
/** Go's zero time, which upstream sends as `until` when tracing is turned off. */
const ZERO_TIME = '0001-01-01T00:00:00.000Z';

const updateIdentityTracing: OperationHandler<'updateIdentityTracing'> = {
  access: 'admin',
  async handle({ deps, params: { id }, body: spec }) {
    const now = deps.clock();
    if (!spec.enabled) {
      await deps.store.transaction(async (tx) => {
        await requireEntity(tx, identity, id);
        await deleteIdentityTrace(tx, id);
      });
      // Upstream's `enabled: false` and empty traceId are omitted (omitempty); `until` is Go's zero time.
      return { status: 200, json: envelope({ until: ZERO_TIME }) };
    }
    const duration = parseGoDuration(spec.duration ?? '');
    const traceId = spec.traceId || randomUUID();
    const requested = spec.channels ?? [];
    const channels =
      !requested.length || requested.includes('all') ? channelNames : channelNames.filter((c) => requested.includes(c));
    const until = 'ms' in duration ? formatTimestamp(new Date(now.getTime() + duration.ms)) : '';
    await deps.store.transaction(async (tx) => {
      // Upstream reads the identity before it parses the duration: an unknown id is 404 whatever the body says.
      await requireEntity(tx, identity, id);
      // Upstream answers a bad duration with 500 and this field cause; the contract's 400 is what it means.
      if ('error' in duration) throw ApiError.invalidField('duration', duration.error, spec.duration ?? '');
      const trace = {
        identityId: id,
        traceId,
        channels: JSON.stringify(channels),
        createdAt: formatTimestamp(now),
        until,
      };
      await saveIdentityTrace(tx, trace, formatTimestamp(now));
    });
    deps.logger.info({ identityId: id, traceId, until, channels }, 'identity tracing enabled');
    return { status: 200, json: envelope({ enabled: true, traceId, until }) };
  },
};

export const identityTraceOperations: OperationTable<'management'> = { updateIdentityTracing };
