// Request validation against the contract: go-openapi's checks, order and messages on real operations.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  loadContract,
  validateRequest,
  type ApiName,
  type OperationSpec,
  type RequestParts,
} from '../../src/http/spec/load-spec.js';

function operation(api: ApiName, operationId: string): OperationSpec {
  const op = loadContract(api).operations.find((candidate) => candidate.operationId === operationId);
  assert.ok(op, `${api} ${operationId}`);
  return op;
}

function jsonRequest(body: unknown, overrides: Partial<RequestParts> = {}): RequestParts {
  return {
    params: {},
    query: {},
    headers: {},
    body,
    contentType: 'application/json',
    hasBody: body !== undefined,
    ...overrides,
  };
}

function noBody(overrides: Partial<RequestParts> = {}): RequestParts {
  return { params: {}, query: {}, headers: {}, body: undefined, contentType: undefined, hasBody: false, ...overrides };
}

function causeOf(op: OperationSpec, parts: RequestParts) {
  const result = validateRequest(op, parts);
  assert.equal(result.ok, false, 'expected a failure');
  return result.ok ? undefined : { ...result.cause, kind: result.kind };
}

const createIdentity = operation('management', 'createIdentity');
const identity = { name: 'laptop', type: 'Device', isAdmin: false };

describe('createIdentity body', () => {
  it('reports a missing name as go-openapi does', () => {
    assert.deepEqual(causeOf(createIdentity, jsonRequest({ type: 'User', isAdmin: false })), {
      field: 'name',
      reason: 'name in body is required',
      value: '<nil>',
      kind: 'validation',
    });
  });

  it('reports the alphabetically first problem, as go-swagger validates properties in that order', () => {
    assert.equal(causeOf(createIdentity, jsonRequest({}))?.reason, 'isAdmin in body is required');
  });

  it('rejects a type outside the enum with the Go list rendering', () => {
    assert.deepEqual(causeOf(createIdentity, jsonRequest({ ...identity, type: 'Robot' })), {
      field: 'type',
      reason: 'type in body should be one of [User Device Service Router Default]',
      value: 'Robot',
      kind: 'validation',
    });
  });

  it('treats a mistyped value as a decode (parse) failure, before any validation', () => {
    const cause = causeOf(createIdentity, jsonRequest({ type: 'Robot', isAdmin: 'no', name: 'x' }));
    assert.equal(cause?.kind, 'parse');
    assert.equal(cause?.field, 'isAdmin');
    assert.match(
      cause?.reason ?? '',
      /^parsing identity body from "" failed, because json: cannot unmarshal string into Go struct field IdentityCreate\.isAdmin of type bool$/,
    );
  });

  it('treats null on a required property as missing', () => {
    assert.equal(causeOf(createIdentity, jsonRequest({ ...identity, name: null }))?.reason, 'name in body is required');
  });

  it('accepts null and zero values on optional properties, as Go leaves them unset', () => {
    const result = validateRequest(
      createIdentity,
      jsonRequest({ ...identity, authPolicyId: null, defaultHostingPrecedence: '', roleAttributes: null }),
    );
    assert.equal(result.ok, true);
    assert.equal(
      causeOf(createIdentity, jsonRequest({ ...identity, defaultHostingPrecedence: 'sometimes' }))?.field,
      'defaultHostingPrecedence',
    );
  });

  it('accepts tags with arbitrary values and unknown properties', () => {
    const body = {
      ...identity,
      tags: { env: 'prod', count: 3, on: true, none: null, nested: { a: [1, 2] } },
      color: 'blue',
    };
    const result = validateRequest(createIdentity, jsonRequest(body));
    assert.ok(result.ok);
    assert.deepEqual(result.value.body, body);
  });

  it('checks bounds with go-openapi wording', () => {
    const cause = causeOf(createIdentity, jsonRequest({ ...identity, defaultHostingCost: 70000 }));
    assert.deepEqual(cause, {
      field: 'defaultHostingCost',
      reason: 'defaultHostingCost in body should be less than or equal to 65535',
      value: '70000',
      kind: 'validation',
    });
  });

  it('names nested fields with dotted paths', () => {
    const op = operation('management', 'createAuthPolicy');
    const body = {
      name: 'p',
      primary: {
        cert: { allowed: true, allowExpiredCerts: false },
        extJwt: { allowed: false, allowedSigners: [] },
        updb: {
          minPasswordLength: 5,
          requireSpecialChar: false,
          requireNumberChar: false,
          requireMixedCase: false,
          maxAttempts: 3,
          lockoutDurationMinutes: 0,
        },
      },
      secondary: { requireTotp: false, requireExtJwtSigner: null },
    };
    assert.equal(causeOf(op, jsonRequest(body))?.reason, 'primary.updb.allowed in body is required');
    assert.equal(
      validateRequest(
        op,
        jsonRequest({ ...body, primary: { ...body.primary, updb: { ...body.primary.updb, allowed: true } } }),
      ).ok,
      true,
    );
  });
});

describe('createServicePolicy body', () => {
  const op = operation('management', 'createServicePolicy');
  const policy = {
    name: 'dial-all',
    type: 'Dial',
    semantic: 'AnyOf',
    identityRoles: ['#all'],
    serviceRoles: ['@svc'],
    postureCheckRoles: [],
    tags: {},
  };

  it('accepts a valid policy', () => {
    const result = validateRequest(op, jsonRequest(policy));
    assert.ok(result.ok);
    assert.deepEqual(result.value.body, policy);
  });

  it('rejects a semantic outside the enum', () => {
    assert.deepEqual(causeOf(op, jsonRequest({ ...policy, semantic: 'OneOf' })), {
      field: 'semantic',
      reason: 'semantic in body should be one of [AllOf AnyOf]',
      value: 'OneOf',
      kind: 'validation',
    });
  });

  it('reports a mistyped array item as a decode failure at its index (Go names the field without it)', () => {
    assert.deepEqual(causeOf(op, jsonRequest({ ...policy, identityRoles: ['#a', 7] })), {
      field: 'identityRoles.1',
      reason:
        'parsing policy body from "" failed, because json: cannot unmarshal number into Go struct field ServicePolicyCreate.identityRoles of type string',
      value: '7',
      kind: 'parse',
    });
  });
});

describe('posture check discriminator', () => {
  const op = operation('management', 'createPostureCheck');

  it('validates typeId OS against postureCheckOperatingSystemCreate', () => {
    assert.equal(
      causeOf(op, jsonRequest({ name: 'os', typeId: 'OS' }))?.reason,
      'operatingSystems in body is required',
    );
    assert.equal(
      causeOf(op, jsonRequest({ name: 'os', typeId: 'OS', operatingSystems: [] }))?.reason,
      'operatingSystems in body should have at least 1 items',
    );
    const os = { name: 'os', typeId: 'OS', operatingSystems: [{ type: 'Linux', versions: ['>=5.0'] }] };
    assert.equal(validateRequest(op, jsonRequest(os)).ok, true);
    assert.equal(
      causeOf(op, jsonRequest({ ...os, operatingSystems: [{ type: 'BeOS', versions: [] }] }))?.field,
      'operatingSystems.0.type',
    );
  });

  it('picks another subtype by its x-class', () => {
    assert.equal(causeOf(op, jsonRequest({ name: 'mac', typeId: 'MAC' }))?.reason, 'macAddresses in body is required');
    assert.equal(validateRequest(op, jsonRequest({ name: 'mfa', typeId: 'MFA' })).ok, true);
  });

  it('reports a missing or unknown typeId before anything else', () => {
    assert.deepEqual(causeOf(op, jsonRequest({})), {
      field: 'typeId',
      reason: 'typeId in body is required',
      value: '',
      kind: 'validation',
    });
    assert.deepEqual(causeOf(op, jsonRequest({ name: 'x', typeId: 'RETINA' })), {
      field: 'typeId',
      reason: 'invalid typeId value: "RETINA"',
      value: 'RETINA',
      kind: 'parse',
    });
  });

  it('matches keys to properties in any letter case, as Go does (the ziti CLI sends "Type" and "Versions")', () => {
    const body: Record<string, unknown> = {
      Name: 'os',
      TYPEID: 'OS',
      operatingSystems: [{ Type: 'Windows', Versions: ['10.0.0'] }],
      tags: { Key: 'v' },
    };
    assert.equal(validateRequest(op, jsonRequest(body)).ok, true);
    assert.deepEqual(body, {
      name: 'os',
      typeId: 'OS',
      operatingSystems: [{ type: 'Windows', versions: ['10.0.0'] }],
      tags: { Key: 'v' },
    });
    // An exact key and a case variant land on one field: the later one in the document wins.
    const twice: Record<string, unknown> = { name: 'mfa', typeId: 'MFA', timeoutSeconds: 5, TimeoutSeconds: 9 };
    assert.equal(validateRequest(op, jsonRequest(twice)).ok, true);
    assert.equal(twice.timeoutSeconds, 9);
  });

  it('accepts a subtype whose class the base enum lacks (client ENDPOINT_STATE)', () => {
    const client = operation('client', 'createPostureResponse');
    assert.equal(
      validateRequest(client, jsonRequest({ id: 'check-id', typeId: 'ENDPOINT_STATE', unlocked: true })).ok,
      true,
    );
    assert.equal(
      causeOf(client, jsonRequest({ id: 'check-id', typeId: 'DOMAIN' }))?.reason,
      'domain in body is required',
    );
  });
});

describe('query, path and header parameters', () => {
  const list = operation('management', 'listIdentities');

  it('rejects a limit that is not an int64', () => {
    assert.deepEqual(causeOf(list, noBody({ query: { limit: 'abc' } })), {
      field: 'limit',
      reason: 'limit in query must be of type int64: "abc"',
      value: 'abc',
      kind: 'validation',
    });
  });

  it('coerces declared parameters and passes unknown ones through', () => {
    const result = validateRequest(
      list,
      noBody({ query: { limit: '25', offset: '', roleFilter: ['#a', '#b'], sort: 'name asc', asIdentity: 'x' } }),
    );
    assert.ok(result.ok);
    assert.deepEqual(result.value.query, { limit: 25, roleFilter: ['#a', '#b'], sort: 'name asc', asIdentity: 'x' });
  });

  it('takes the last value of a repeated scalar and wraps a single multi value', () => {
    const result = validateRequest(list, noBody({ query: { limit: ['1', '2'], roleFilter: '#a' } }));
    assert.ok(result.ok);
    assert.deepEqual(result.value.query, { limit: 2, roleFilter: ['#a'] });
  });

  it('checks query enums', () => {
    const op = operation('management', 'listIdentityServices');
    assert.equal(
      causeOf(op, noBody({ params: { id: 'x' }, query: { policyType: 'host' } }))?.reason,
      'policyType in query should be one of [dial bind]',
    );
  });

  it('requires required query parameters', () => {
    const op = operation('client', 'authenticate');
    assert.deepEqual(causeOf(op, noBody()), {
      field: 'method',
      reason: 'method in query is required',
      value: '[]',
      kind: 'validation',
    });
    assert.deepEqual(causeOf(op, noBody({ query: { method: '' } })), {
      field: 'method',
      reason: 'method in query is required',
      value: '',
      kind: 'validation',
    });
    assert.equal(
      causeOf(op, noBody({ query: { method: 'token' } }))?.reason,
      'method in query should be one of [password cert ext-jwt]',
    );
    assert.equal(
      validateRequest(op, jsonRequest({ username: 'admin', password: 'secret123' }, { query: { method: 'password' } }))
        .ok,
      true,
    );
  });

  it('checks uuid query formats', () => {
    const op = operation('client', 'enroll');
    assert.equal(
      causeOf(op, noBody({ query: { token: 'abc', method: 'ott' } }))?.reason,
      'token in query must be of type uuid: "abc"',
    );
    assert.equal(
      validateRequest(op, noBody({ query: { token: '5f0a1b2c-3d4e-4f50-8a6b-7c8d9e0f1a2b', method: 'ott' } })).ok,
      true,
    );
  });

  it('reads header parameters case-insensitively', () => {
    const op = operation('client', 'deleteMfa');
    const result = validateRequest(op, noBody({ headers: { 'mfa-validation-code': '123456' } }));
    assert.ok(result.ok);
    assert.equal(result.value.headers['mfa-validation-code'], '123456');
  });

  it('binds the body before a later-named query parameter, as go-swagger sorts parameters by name', () => {
    const op = operation('client', 'authenticate');
    assert.equal(causeOf(op, jsonRequest({ username: 7 }))?.field, 'username');
  });
});

describe('content types', () => {
  it('rejects a body of another type with the go-openapi message', () => {
    assert.deepEqual(
      causeOf(createIdentity, jsonRequest('name=x', { contentType: 'application/x-www-form-urlencoded' })),
      {
        field: 'Content-Type',
        reason: 'unsupported media type "application/x-www-form-urlencoded", only [application/json] are allowed',
        value: 'application/x-www-form-urlencoded',
        kind: 'validation',
      },
    );
  });

  it('checks a body without Content-Type as application/octet-stream', () => {
    assert.equal(
      causeOf(createIdentity, jsonRequest(identity, { contentType: undefined }))?.value,
      'application/octet-stream',
    );
  });

  it('allows parameters on the media type and any letter case', () => {
    assert.equal(
      validateRequest(createIdentity, jsonRequest(identity, { contentType: 'Application/JSON; charset=utf-8' })).ok,
      true,
    );
  });

  it('reports an unparsable Content-Type as a parse failure', () => {
    const cause = causeOf(createIdentity, jsonRequest(identity, { contentType: 'application/' }));
    assert.equal(cause?.kind, 'parse');
    assert.equal(
      cause?.reason,
      'parsing Content-Type header from "application/" failed, because mime: expected token after slash',
    );
  });

  it('counts an empty body with Content-Type application/json as no body', () => {
    const enrollMfa = operation('client', 'enrollMfa');
    assert.equal(
      validateRequest(enrollMfa, noBody({ contentType: 'application/json', hasBody: true, body: '' })).ok,
      true,
    );
    assert.equal(validateRequest(enrollMfa, noBody({ contentType: 'application/json' })).ok, true);
    assert.deepEqual(causeOf(createIdentity, noBody({ contentType: 'application/json' })), {
      field: 'identity',
      reason: 'identity in body is required',
      value: '',
      kind: 'validation',
    });
  });

  it('accepts the other media types an operation declares', () => {
    const verifyCa = operation('management', 'verifyCa');
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    assert.equal(
      validateRequest(verifyCa, jsonRequest(pem, { params: { id: 'ca1' }, contentType: 'text/plain' })).ok,
      true,
    );
    // go-openapi's router adds the API's default, application/json, to every route's consumes: a JSON body reaches
    // the generated binder, which decodes it into the string parameter.
    assert.equal(validateRequest(verifyCa, jsonRequest(pem, { params: { id: 'ca1' } })).ok, true);
    assert.equal(
      causeOf(verifyCa, jsonRequest({ pem }, { params: { id: 'ca1' } }))?.reason,
      'parsing certificate body from "" failed, because json: cannot unmarshal object into Go value of type string',
    );
    assert.deepEqual(
      causeOf(
        verifyCa,
        jsonRequest('pem=x', { params: { id: 'ca1' }, contentType: 'application/x-www-form-urlencoded' }),
      ),
      {
        field: 'Content-Type',
        reason:
          'unsupported media type "application/x-www-form-urlencoded", only [text/plain application/json] are allowed',
        value: 'application/x-www-form-urlencoded',
        kind: 'validation',
      },
    );
    const enroll = operation('client', 'enroll');
    for (const contentType of ['application/x-pem-file', 'text/plain', 'application/pkcs10', 'application/json']) {
      assert.equal(
        validateRequest(enroll, jsonRequest('csr', { contentType, query: { method: 'ott' } })).ok,
        true,
        contentType,
      );
    }
  });

  it('refuses an Accept header that excludes every produced type, but only without a body', () => {
    const list = operation('management', 'listIdentities');
    assert.deepEqual(causeOf(list, noBody({ headers: { accept: 'text/html' } })), {
      field: 'Accept',
      reason: 'unsupported media type requested, only [application/json] are available',
      value: 'text/html',
      kind: 'validation',
    });
    for (const accept of [
      '*/*',
      'application/*',
      'application/json; charset=utf-8',
      'text/html, application/json;q=0.5',
    ]) {
      assert.equal(validateRequest(list, noBody({ headers: { accept } })).ok, true, accept);
    }
    assert.equal(validateRequest(createIdentity, jsonRequest(identity, { headers: { accept: 'text/html' } })).ok, true);
  });

  it('offers application/json on every operation, as go-openapi adds the API default to each route (est/cacerts)', () => {
    const cacerts = operation('client', 'listWellKnownCas');
    for (const accept of ['application/json', 'application/pkcs7-mime', '*/*']) {
      assert.equal(validateRequest(cacerts, noBody({ headers: { accept } })).ok, true, accept);
    }
    assert.equal(
      causeOf(cacerts, noBody({ headers: { accept: 'text/html' } }))?.reason,
      'unsupported media type requested, only [application/pkcs7-mime application/json] are available',
    );
    const caJwt = operation('management', 'getCaJwt');
    assert.equal(
      validateRequest(caJwt, noBody({ params: { id: 'ca1' }, headers: { accept: 'application/json' } })).ok,
      true,
    );
  });
});
