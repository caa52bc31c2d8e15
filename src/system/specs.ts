// `/specs`, `/specs/{id}` and `/specs/{id}/spec`: the project's own copies of the two API documents.
import { stringify as toYaml } from 'yaml';
import { ApiError } from '../errors/api-error.js';
import type { AppDeps } from '../app-deps.js';
import { envelope, listEnvelope } from '../http/envelope.js';
import type { OperationHandler } from '../http/operation.js';
import { loadContract, type ApiName } from '../http/spec/load-spec.js';

const specApis: Record<string, ApiName> = { 'edge-client': 'client', 'edge-management': 'management' };

function specEntity(id: string, deps: Pick<AppDeps, 'build'>) {
  const date = `${deps.build.buildDate.replace(' ', 'T')}.000Z`;
  return {
    _links: { self: { href: `./specs/${id}` }, spec: { href: `./specs/${id}/spec` } },
    createdAt: date,
    id,
    name: id,
    tags: {},
    updatedAt: date,
  };
}

function requireSpec(id: unknown): ApiName {
  const api = typeof id === 'string' ? specApis[id] : undefined;
  if (!api) throw new ApiError('NOT_FOUND');
  return api;
}

export const listSpecs: OperationHandler = {
  access: 'public',
  handle: ({ deps }) => {
    const data = Object.keys(specApis).map((id) => specEntity(id, deps));
    return Promise.resolve({
      status: 200,
      json: listEnvelope(data, { limit: data.length, offset: 0, totalCount: data.length }),
    });
  },
};

export const detailSpec: OperationHandler<'detailSpec'> = {
  access: 'public',
  handle: ({ deps, params }) => {
    requireSpec(params.id);
    return Promise.resolve({ status: 200, json: envelope(specEntity(params.id, deps)) });
  },
};

/** The raw document, no envelope: JSON unless the caller asks for YAML. */
export const detailSpecBody: OperationHandler = {
  access: 'public',
  handle: ({ params, request }) => {
    const document = loadContract(requireSpec(params.id)).document;
    const wantsYaml = /\btext\/yaml\b/.test(request.headers.accept ?? '');
    return Promise.resolve(
      wantsYaml
        ? { status: 200, raw: toYaml(document), contentType: 'text/yaml' }
        : { status: 200, raw: `${JSON.stringify(document)}\n`, contentType: 'application/json' },
    );
  },
};
