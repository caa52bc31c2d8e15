// Capabilities, protocols and the management `/summary` counts.
import { envelope } from '../http/envelope.js';
import type { OperationHandler } from '../http/operation.js';
import { summaryCounts } from '../store/queries/summary.js';

export const listEnumeratedCapabilities: OperationHandler = {
  access: 'public',
  handle: () => Promise.resolve({ status: 200, json: envelope(['OIDC_AUTH', 'HA_CONTROLLER']) }),
};

export const listProtocols: OperationHandler = {
  access: 'public',
  handle: ({ deps }) => {
    const { advertisedHost, advertisedPort } = deps.settings;
    return Promise.resolve({
      status: 200,
      json: envelope({ https: { address: `${advertisedHost}:${advertisedPort}` } }),
    });
  },
};

export const listSummary: OperationHandler = {
  access: 'admin',
  async handle({ deps }) {
    const counts = await deps.store.read(summaryCounts);
    return { status: 200, json: envelope(counts) };
  },
};
