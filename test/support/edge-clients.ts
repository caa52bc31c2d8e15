// SDK clients as a router sees them: an identity logged in, holding a certificate its API session may present
// (signed through `/current-api-session/certificates` from a real CSR), whose SHA-1 the router passes on.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import { create, toBinary } from '@bufbuild/protobuf';
import { encodeString, encodeStringSlice, encodeU32ToBytesMap } from '../../src/fabric/channel/header-codecs.js';
import type { Message } from '../../src/fabric/channel/message.js';
import {
  ContentType as EdgeType,
  CreateTerminatorV2RequestSchema,
} from '../../src/fabric/messages/gen/edge_ctrl_pb.js';
import { CreateCircuitV2Header } from '../../src/fabric/messages/headers.js';
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

/** The CreateTerminatorV2 a router sends for a hosting SDK that binds `address` with its Bind session's token. */
export function createTerminatorRequest(
  address: string,
  bindToken: string,
  host: SdkClient,
): Omit<Message, 'sequence'> {
  return {
    contentType: EdgeType.CreateTerminatorV2RequestType,
    headers: new Map(),
    body: toBinary(
      CreateTerminatorV2RequestSchema,
      create(CreateTerminatorV2RequestSchema, {
        address,
        sessionToken: bindToken,
        fingerprints: [host.fingerprint],
        peerData: { 1003: Uint8Array.of(42) },
      }),
    ),
  };
}

/** The CreateCircuitV2 a router sends for a dialling SDK with its Dial session's token (and its API session's). */
export function createCircuitRequest(
  dialToken: string,
  dialer: SdkClient,
  withApiSession = false,
): Omit<Message, 'sequence'> {
  return {
    contentType: EdgeType.CreateCircuitV2RequestType,
    headers: new Map([
      [CreateCircuitV2Header.requestSessionToken, encodeString(dialToken)],
      ...(withApiSession
        ? [[CreateCircuitV2Header.requestApiSessionToken, encodeString(dialer.apiSessionToken)] as const]
        : []),
      [CreateCircuitV2Header.requestFingerprints, encodeStringSlice([dialer.fingerprint])],
      [CreateCircuitV2Header.peerData, encodeU32ToBytesMap(new Map([[1003, Uint8Array.of(7)]]))],
    ]),
    body: new Uint8Array(0),
  };
}
