// Seeds upstream v1.1.8 through its management API (it has no database we could write to): the same identities,
// services, routers and policies as ours gets, created by a bounded pool of concurrent requests with a progress line.
import https from 'node:https';
import { errorCode, httpsRequest } from './https-client.js';
import {
  FIVE_PERCENT,
  edgeRouterPolicyAt,
  fivePercentPolicy,
  routerAttributesFor,
  routerName,
  scaleIdentities,
  serviceAttributesFor,
  serviceEdgeRouterPolicyAt,
  serviceName,
  servicePolicyAt,
  type ScaleModel,
  type SeededPolicy,
} from './scale-model.js';
import { attributesFor, identityName } from './seed-identities.js';
import { say, settings } from './settings.js';

export interface ApiSeeder {
  /** POSTs `count` bodies to a management collection, `settings.upstreamSeedConcurrency` at a time; returns the ids in order. */
  create(collection: string, count: number, body: (index: number) => unknown): Promise<string[]>;
  /** The id of the entity with this name. */
  idByName(collection: string, name: string): Promise<string>;
  close(): void;
}

export function apiSeeder(baseUrl: string, token: string): ApiSeeder {
  const concurrency = settings.upstreamSeedConcurrency;
  const agent = new https.Agent({ keepAlive: true, maxSockets: concurrency });
  const post = async (collection: string, body: unknown): Promise<string> => {
    const reply = await httpsRequest(`${baseUrl}/edge/management/v1/${collection}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'zt-session': token },
      body: JSON.stringify(body),
      agent,
      timeoutMs: 120_000,
    });
    const id = (reply.body as { data?: { id?: unknown } } | undefined)?.data?.id;
    if (reply.status !== 201 || typeof id !== 'string') {
      throw new Error(
        `upstream POST /${collection} answered ${reply.status} ${errorCode(reply.body) ?? ''}: ${JSON.stringify(reply.body).slice(0, 300)}`,
      );
    }
    return id;
  };
  return {
    async create(collection, count, body) {
      const ids: string[] = new Array<string>(count);
      let next = 0;
      let done = 0;
      const started = performance.now();
      const every = Math.max(1, Math.min(5_000, Math.round(count / 10)));
      const worker = async () => {
        while (next < count) {
          const index = next++;
          ids[index] = await post(collection, body(index));
          if (++done % every === 0 || done === count) {
            const rate = done / ((performance.now() - started) / 1000);
            say(`  upstream ${collection}: ${done}/${count} (${rate.toFixed(0)}/s)`);
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
      return ids;
    },
    async idByName(collection, name) {
      const filter = encodeURIComponent(`name = "${name}"`);
      const reply = await httpsRequest(`${baseUrl}/edge/management/v1/${collection}?filter=${filter}`, {
        headers: { 'zt-session': token },
        agent,
      });
      const id = (reply.body as { data?: Array<{ id?: unknown }> } | undefined)?.data?.[0]?.id;
      if (typeof id !== 'string') throw new Error(`upstream has no ${collection} named ${name} (${reply.status})`);
      return id;
    },
    close: () => agent.destroy(),
  };
}

/**
 * Bench identities [from, to) as ours has them: the same names and attributes, plus the 5% attribute on every 20th
 * when the scale phase will run (ours adds it straight into its database then).
 */
export function seedUpstreamIdentities(
  seeder: ApiSeeder,
  from: number,
  to: number,
  withFivePercent: boolean,
): Promise<string[]> {
  return seeder.create('identities', to - from, (offset) => {
    const index = from + offset;
    const extra = withFivePercent && index % FIVE_PERCENT.identityStride === 0 ? [FIVE_PERCENT.identityAttribute] : [];
    return {
      name: identityName(index),
      type: 'User',
      isAdmin: false,
      roleAttributes: [...attributesFor(index), ...extra],
    };
  });
}

const policyBody = (policy: SeededPolicy) => ({
  name: policy.name,
  semantic: policy.semantic,
  ...(policy.type === undefined ? {} : { type: policy.type === 1 ? 'Dial' : 'Bind' }),
  ...(policy.roles.identity_roles ? { identityRoles: policy.roles.identity_roles } : {}),
  ...(policy.roles.service_roles ? { serviceRoles: policy.roles.service_roles } : {}),
  ...(policy.roles.edge_router_roles ? { edgeRouterRoles: policy.roles.edge_router_roles } : {}),
});

export interface UpstreamScaleIds {
  fivePercentPolicy: string;
}

/** The scale model's services, routers and policies, the heavy identity and the two logins, through the API. */
export async function seedUpstreamScale(seeder: ApiSeeder, model: ScaleModel): Promise<UpstreamScaleIds> {
  say('seeding upstream through its API: services, edge routers, policies…');
  await seeder.create('services', model.services, (index) => ({
    name: serviceName(index),
    encryptionRequired: true,
    roleAttributes: serviceAttributesFor(model, index),
  }));
  await seeder.create('edge-routers', model.edgeRouters, (index) => ({
    name: routerName(index),
    roleAttributes: routerAttributesFor(index),
  }));
  await seeder.create('service-policies', model.servicePolicies, (index) => policyBody(servicePolicyAt(model, index)));
  const [fivePercent] = await seeder.create('service-policies', 1, () => policyBody(fivePercentPolicy(false)));
  await seeder.create('edge-router-policies', model.edgeRouterPolicies, (index) =>
    policyBody(edgeRouterPolicyAt(index)),
  );
  await seeder.create('service-edge-router-policies', model.serviceEdgeRouterPolicies, (index) =>
    policyBody(serviceEdgeRouterPolicyAt(model, index)),
  );
  const { heavy, typical, password } = scaleIdentities;
  const [heavyId] = await seeder.create('identities', 1, () => ({
    name: heavy.name,
    type: 'User',
    isAdmin: false,
    roleAttributes: heavy.attributes,
  }));
  const typicalId = await seeder.idByName('identities', typical.name);
  const logins = [
    { identityId: typicalId, username: typical.username },
    { identityId: heavyId!, username: heavy.username },
  ];
  await seeder.create('authenticators', logins.length, (index) => ({ method: 'updb', password, ...logins[index] }));
  return { fivePercentPolicy: fivePercent! };
}
