// SDK clients as a router sees them: an identity logged in, holding a certificate its API session may present
// (signed through `/current-api-session/certificates` from a real CSR), whose SHA-1 the router passes on.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import type { TestApp } from './test-app.js';
import { createEntity, createUser, login } from './factories.js';
import { createCsr } from './third-party-ca.js';

export interface SdkClient {
  identityId: string;
  apiSessionToken: string;
  /** sha1 of the certificate's DER, lower-case hex, as routers report client certificates. */
  fingerprint: string;
}

export async function sdkClient(t: TestApp, admin: string): Promise<SdkClient> {
  const user = await createUser(t, admin);
  const apiSessionToken = await login(t, user.username, user.password);
  const { csrPem } = await createCsr(`sdk-${user.id}`, 'ec');
  const result = await t.call({
    method: 'POST',
    url: '/edge/client/v1/current-api-session/certificates',
    token: apiSessionToken,
    payload: { csr: csrPem },
  });
  assert.equal(result.status, 201, result.text);
  const certificate = new X509Certificate((result.body as { data: { certificate: string } }).data.certificate);
  // A certificate is valid after its notBefore (upstream: now.After(ValidAfter)), which is now to the second.
  t.clock.advance(1000);
  return {
    identityId: user.id,
    apiSessionToken,
    fingerprint: createHash('sha1').update(certificate.raw).digest('hex'),
  };
}

/** Service policies by which `host` may bind the service and `dialer` may dial it (one each, named by type). */
export async function allowBindAndDial(
  t: TestApp,
  admin: string,
  serviceId: string,
  host: SdkClient,
  dialer: SdkClient,
): Promise<void> {
  for (const [type, who] of [
    ['Bind', host],
    ['Dial', dialer],
  ] as const) {
    await createEntity(t, admin, 'service-policies', {
      name: `${type}-${serviceId}`,
      type,
      semantic: 'AnyOf',
      identityRoles: [`@${who.identityId}`],
      serviceRoles: [`@${serviceId}`],
    });
  }
}
