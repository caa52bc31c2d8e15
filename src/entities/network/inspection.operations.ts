// `POST /fabric/v1/inspections` (what `ziti fabric inspect` calls): the controller and the routers the app regex
// matches answer the requested values (fabric/mgmt/inspections.ts). The answer is upstream's bare InspectResponse
// (api_impl/inspections_api_model.go MapInspectResultToRestModel), not an envelope: a `metrics…` value as the metrics
// events it holds, a value that reads as a JSON object or array as that JSON, anything else as the text it is.
import type { OperationHandler, OperationTable } from '../../http/operation.js';
import type { InspectValue } from '../../fabric/mgmt/inspections.js';
import { ApiError } from '../../errors/api-error.js';
import { metricsInspectionEvents } from '../../events/metrics-inspection.js';
import type { LinkEnds } from '../../events/metrics-events.js';
import type { NetworkViews } from '../../fabric/network-views.js';

const inspect: OperationHandler<'inspect', 'fabric'> = {
  access: 'admin',
  async handle({ deps, body }) {
    if (!deps.inspections) throw ApiError.withMessage('UNHANDLED', 'inspections are not available on this controller');
    const result = await deps.inspections.inspect(body.appRegex, body.requestedValues);
    // Link metrics name their link's routers, as the events of the same metrics do.
    const linkEnds = result.values.some(isMetrics) ? await linkEndsOf(deps.network) : () => undefined;
    // Go's field order; an empty list is a nil slice there, written null.
    const response = {
      errors: result.errors.length > 0 ? result.errors : null,
      success: result.success,
      values: result.values.length > 0 ? result.values.map((value) => restValue(value, linkEnds)) : null,
    };
    return { status: 200, json: response };
  },
};

function restValue({ appId, name, value }: InspectValue, linkEnds: LinkEnds): Record<string, unknown> {
  if (isMetrics({ name })) return { appId, name, value: metricsInspectionEvents(name, value, linkEnds) ?? value };
  return { appId, name, value: structured(value) ?? value };
}

const isMetrics = ({ name }: Pick<InspectValue, 'name'>) => name.startsWith('metrics');

async function linkEndsOf(network: NetworkViews | undefined): Promise<LinkEnds> {
  const links = new Map((await network?.links.list())?.map((link) => [link.id, link]) ?? []);
  return (linkId) => {
    const link = links.get(linkId);
    return link && { srcRouterId: link.sourceRouterId, dstRouterId: link.destRouterId };
  };
}

/** A value starting `{` or `[` that parses as that JSON (upstream maps `metrics…` values to events instead). */
function structured(value: string): unknown {
  if (!value.startsWith('{') && !value.startsWith('[')) return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    const isObject = typeof parsed === 'object' && parsed !== null;
    return isObject && Array.isArray(parsed) === value.startsWith('[') ? parsed : undefined;
  } catch {
    // Upstream gives the text as it is when it does not parse.
    return undefined;
  }
}

export const inspectionOperations: OperationTable<'fabric'> = { inspect };
