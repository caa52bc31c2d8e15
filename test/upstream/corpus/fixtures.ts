// Fixtures the sequences share, made through the API (so their exchanges are compared too).
import type { JsonGeneralName } from '@peculiar/x509';
import { createCsr, type CsrAndKey } from '../../support/third-party-ca.js';
import { newCsr, newKeyPair } from '../../support/test-keys.js';
import type { Steps } from '../steps.js';

export const PASSWORD = 'Ordinary-Password-1';

export interface User {
  id: string;
  username: string;
  authenticatorId: string;
}

/** A non-admin identity with a password, logged in through the client API; later steps send `as(name)`. */
export async function ordinaryUser(s: Steps, name: string, roleAttributes: string[] = []): Promise<User> {
  const id = await s.create(name, '/identities', { name, type: 'User', isAdmin: false, roleAttributes });
  const username = `${name}-login`;
  const authenticatorId = await s.create(`${name}-updb`, '/authenticators', {
    method: 'updb',
    identityId: id,
    username,
    password: PASSWORD,
  });
  await s.client.login(name, username, PASSWORD);
  return { id, username, authenticatorId };
}

export interface Enrolled {
  id: string;
  cert: string;
  key: string;
}

/**
 * An identity enrolled by one-time token with a CSR, as the SDKs do, then logged in with its certificate through the
 * client API (`as(name)`).
 */
export async function enrolledIdentity(s: Steps, name: string, roleAttributes: string[] = []): Promise<Enrolled> {
  const id = await s.create(name, '/identities', {
    name,
    type: 'Device',
    isAdmin: false,
    roleAttributes,
    enrollment: { ott: true },
  });
  const token = (await s.get(`/identities/${id}`)).data?.enrollment?.ott?.token;
  s.name(token, `${name}-ott`);
  const csr: CsrAndKey = await createCsr(name);
  const enrolled = await s.client
    .as('anonymous')
    .post(`/enroll?method=ott&token=${token}`, { body: csr.csrPem, contentType: 'text/plain' });
  const cert = String(enrolled.data?.cert ?? '');
  const login = await s.client.as('anonymous').post('/authenticate?method=cert', {
    body: { configTypes: ['all'], sdkInfo: { type: 'diff' } },
    cert: { cert, key: csr.keyPem },
  });
  s.useToken(name, login.data?.token);
  return { id, cert, key: csr.keyPem };
}

const SERVER_SANS: JsonGeneralName[] = [
  { type: 'dns', value: 'localhost' },
  { type: 'ip', value: '127.0.0.1' },
];

/** Both CSRs a router sends, the client one named after the router. */
export async function routerCsrs(routerId: string) {
  const [serverKey, clientKey] = await Promise.all([newKeyPair('rsa'), newKeyPair('ec')]);
  const subject = `C=US, O=OpenZiti, CN=${routerId}`;
  return {
    body: {
      serverCertCsr: await newCsr(serverKey, subject, SERVER_SANS),
      certCsr: await newCsr(clientKey, subject, SERVER_SANS),
    },
    clientKey: clientKey.keyPem,
  };
}

/**
 * An edge router enrolled as `ziti router enroll` does it, which then never connects: neither controller here has
 * a running router, so both see it enrolled and offline.
 */
export async function enrolledEdgeRouter(s: Steps, name: string, roleAttributes: string[]): Promise<string> {
  const id = await s.create(name, '/edge-routers', { name, roleAttributes, isTunnelerEnabled: false });
  const token = (await s.get(`/edge-routers/${id}`)).data?.enrollmentToken;
  s.name(token, `${name}-erott`);
  await s.client.as('anonymous').post(`/enroll?method=erott&token=${token}`, { body: (await routerCsrs(id)).body });
  return id;
}
