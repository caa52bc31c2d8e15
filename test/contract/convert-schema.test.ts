// Swagger 2.0 → JSON schema conversion, and response validation against the converted contract.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  convertDefinitions,
  convertSchema,
  createConvertContext,
  type SchemaMode,
} from '../../src/http/spec/convert-schema.js';
import { loadContract, validateResponse, type ApiName, type OperationSpec } from '../../src/http/spec/load-spec.js';
import { bodyValidator, createContractAjv, responseValidator } from '../../src/http/spec/operation-validators.js';

const definitions = {
  tags: { allOf: [{ $ref: '#/definitions/subTags' }], 'x-nullable': true },
  subTags: { type: 'object', additionalProperties: { type: 'object' } },
  semantic: { type: 'string', enum: ['AllOf', 'AnyOf'] },
  thing: {
    type: 'object',
    required: ['name', 'note'],
    properties: {
      name: { type: 'string' },
      note: { type: 'string', 'x-nullable': true, 'x-omitempty': true },
      data: { type: 'object' },
      semantic: { $ref: '#/definitions/semantic' },
      port: { type: 'integer', minimum: 1, exclusiveMaximum: true, maximum: 65536 },
      tags: { $ref: '#/definitions/tags' },
      owner: { type: 'string', 'x-nullable': true },
    },
  },
  shape: {
    type: 'object',
    required: ['kind'],
    properties: { kind: { type: 'string', enum: ['circle'] }, label: { type: 'string' } },
    discriminator: 'kind',
  },
  circle: {
    allOf: [
      { $ref: '#/definitions/shape' },
      { type: 'object', required: ['radius'], properties: { radius: { type: 'number' } } },
    ],
    'x-class': 'CIRCLE',
  },
  square: {
    allOf: [
      { $ref: '#/definitions/shape' },
      { type: 'object', required: ['side'], properties: { side: { type: 'number' } } },
    ],
  },
};

function validatorFor(mode: SchemaMode, name: string) {
  const id = `test-${mode}`;
  const ajv = createContractAjv();
  ajv.addSchema({ $id: id, definitions: convertDefinitions(createConvertContext(definitions, mode, id)) });
  const validate = ajv.getSchema(`${id}#/definitions/${name}`);
  assert.ok(validate);
  return (data: unknown) => validate(data);
}

describe('convertSchema', () => {
  it('turns an object without properties into "any JSON value"', () => {
    const ctx = createConvertContext(definitions, 'response', 'x');
    assert.deepEqual(convertSchema({ type: 'object' }, ctx), {});
    assert.deepEqual(convertSchema(definitions.subTags, ctx), { type: 'object', additionalProperties: {} });
  });

  it("lets requests put any value where the object is only additionalProperties: true (a config's data)", () => {
    const open = { type: 'object', additionalProperties: true };
    assert.deepEqual(convertSchema(open, createConvertContext(definitions, 'request', 'x')), {});
    assert.deepEqual(convertSchema(open, createConvertContext(definitions, 'response', 'x')), { type: 'object' });
  });

  it('drops x-omitempty and rewrites refs into the schema document', () => {
    const ctx = createConvertContext(definitions, 'response', 'doc');
    assert.deepEqual(convertSchema({ $ref: '#/definitions/semantic' }, ctx), { $ref: 'doc#/definitions/semantic' });
    assert.deepEqual(convertSchema({ type: 'string', 'x-omitempty': true }, ctx), { type: 'string' });
  });

  it('writes Swagger boolean exclusive bounds as draft-07 numbers', () => {
    const ctx = createConvertContext(definitions, 'response', 'x');
    assert.deepEqual(convertSchema(definitions.thing.properties.port, ctx), {
      type: 'integer',
      minimum: 1,
      exclusiveMaximum: 65536,
    });
  });

  it('makes subtypes of a discriminated definition extend its plain base', () => {
    const converted = convertDefinitions(createConvertContext(definitions, 'request', 'doc'));
    assert.deepEqual((converted.circle as { allOf: unknown[] }).allOf[0], { $ref: 'doc#/definitions/shape__base' });
    assert.ok(converted.shape__base);
    assert.deepEqual((converted.shape as Record<string, unknown>)['x-go-discriminator'], {
      property: 'kind',
      values: ['CIRCLE', 'square', 'shape'],
      base: 'shape',
    });
  });
});

describe('converted schemas', () => {
  it('accept any value inside tags, and null tags only in replies', () => {
    const reply = validatorFor('response', 'thing');
    const thing = { name: 'a', note: null, tags: { a: 1, b: null, c: { d: [true] } }, data: 'anything' };
    assert.equal(reply(thing), true);
    assert.equal(reply({ ...thing, tags: null }), true);
    assert.equal(reply({ ...thing, tags: 'x' }), false);
  });

  it('allow null in replies only where x-nullable says so', () => {
    const reply = validatorFor('response', 'thing');
    assert.equal(reply({ name: 'a', note: null, owner: null }), true);
    assert.equal(reply({ name: null, note: null }), false);
    assert.equal(reply({ name: 'a', note: 'n', semantic: null }), false);
  });

  it('follow Go in requests: optional null or zero is unset, required null is missing', () => {
    const request = validatorFor('request', 'thing');
    assert.equal(request({ name: 'a', note: 'n', semantic: null, port: null, owner: null }), true);
    assert.equal(request({ name: 'a', note: 'n', semantic: '', port: 0 }), true, 'zero values skip validation');
    assert.equal(request({ name: 'a', note: 'n', semantic: 'Some' }), false);
    assert.equal(request({ name: 'a', note: 'n', port: 65536 }), false);
    assert.equal(request({ name: 'a', note: null }), false, 'x-nullable does not excuse a required property');
    assert.equal(request({ name: 'a', note: 'n', extra: { anything: true } }), true, 'unknown properties are ignored');
  });

  it('pick the subtype named by the discriminator (x-class, else the definition name)', () => {
    const request = validatorFor('request', 'shape');
    assert.equal(request({ kind: 'CIRCLE', radius: 2 }), true);
    assert.equal(request({ kind: 'CIRCLE', side: 2 }), false);
    assert.equal(request({ kind: 'square', side: 2 }), true);
    assert.equal(request({ kind: 'triangle' }), false);
    assert.equal(request({ radius: 2 }), false);
  });
});

function operation(api: ApiName, operationId: string): OperationSpec {
  const op = loadContract(api).operations.find((candidate) => candidate.operationId === operationId);
  assert.ok(op, operationId);
  return op;
}

const now = '2024-07-19T14:03:12.345Z';
const identity = {
  _links: { self: { href: './identities/Hk3.9xWab' } },
  createdAt: now,
  updatedAt: now,
  id: 'Hk3.9xWab',
  tags: {},
  name: 'laptop',
  type: {
    _links: { self: { href: './identity-types/Device' } },
    entity: 'identity-types',
    id: 'Device',
    name: 'Device',
  },
  typeId: 'Device',
  isDefaultAdmin: false,
  isAdmin: false,
  authenticators: {},
  enrollment: { ott: { id: 'e1', jwt: 'a.b.c', token: 't', expiresAt: now } },
  envInfo: {},
  sdkInfo: {},
  roleAttributes: null,
  hasEdgeRouterConnection: false,
  hasApiSession: false,
  isMfaEnabled: false,
  serviceHostingPrecedences: {},
  serviceHostingCosts: {},
  defaultHostingCost: 0,
  defaultHostingPrecedence: 'default',
  authPolicyId: 'default',
  authPolicy: {
    _links: { self: { href: './auth-policies/default' } },
    entity: 'auth-policies',
    id: 'default',
    name: 'Default',
  },
  externalId: null,
  disabled: false,
  disabledAt: null,
  disabledUntil: null,
};
const page = { pagination: { limit: 10, offset: 0, totalCount: 1 }, filterableFields: ['name'] };

describe('the converted contract', () => {
  it('compiles a validator for every body and every declared response', () => {
    for (const api of ['client', 'management'] as const) {
      for (const op of loadContract(api).operations) {
        if (op.parameters.some((parameter) => parameter.in === 'body'))
          assert.ok(bodyValidator(op), `${api} ${op.operationId} body`);
        for (const status of op.responseStatuses) responseValidator(op, String(status));
      }
    }
  });
});

describe('validateResponse', () => {
  const listIdentities = operation('management', 'listIdentities');

  it('accepts a correct listIdentitiesEnvelope', () => {
    assert.deepEqual(validateResponse(listIdentities, 200, { data: [identity], meta: page }), []);
  });

  it('reports a missing required field', () => {
    const { name: _name, ...nameless } = identity;
    assert.deepEqual(validateResponse(listIdentities, 200, { data: [nameless], meta: page }), [
      "/data/0 must have required property 'name'",
    ]);
  });

  it('reports null where the schema does not allow it', () => {
    assert.deepEqual(validateResponse(listIdentities, 200, { data: [{ ...identity, isAdmin: null }], meta: page }), [
      '/data/0/isAdmin must be boolean',
    ]);
  });

  it('treats an undeclared status as a problem', () => {
    assert.deepEqual(validateResponse(listIdentities, 418, {}), [
      'status 418 is not declared for listIdentities (declared: 200, 400, 401, 429, 501)',
    ]);
  });

  it('accepts the error envelope on the 501 every operation declares', () => {
    const error = {
      error: { code: 'NOT_IMPLEMENTED', message: 'not yet', requestId: 'x1' },
      meta: { apiEnrollmentVersion: '0.0.1', apiVersion: '0.0.1' },
    };
    assert.deepEqual(validateResponse(operation('client', 'getEnrollmentJwks'), 501, error), []);
  });

  it('validates posture checks in a list by their typeId', () => {
    const check = {
      _links: { self: { href: './posture-checks/p1' } },
      createdAt: now,
      updatedAt: now,
      id: 'p1',
      tags: {},
      name: 'os',
      typeId: 'OS',
      version: 1,
      roleAttributes: ['#a'],
    };
    const op = operation('management', 'listPostureChecks');
    assert.deepEqual(
      validateResponse(op, 200, {
        data: [{ ...check, operatingSystems: [{ type: 'Linux', versions: [] }] }],
        meta: page,
      }),
      [],
    );
    assert.deepEqual(validateResponse(op, 200, { data: [check], meta: page }), [
      "/data/0 must have required property 'operatingSystems'",
    ]);
  });

  it('applies the corrections: undefined required fields are gone, /summary may answer meta null', () => {
    assert.deepEqual(
      validateResponse(operation('management', 'listSummary'), 200, { data: { identities: 1 }, meta: null }),
      [],
    );
    const enroll = operation('client', 'enroll');
    assert.deepEqual(validateResponse(enroll, 200, '-----BEGIN CERTIFICATE-----\n'), []);
    assert.deepEqual(validateResponse(enroll, 200, { data: { cert: 'pem' }, meta: {} }), []);
  });
});
