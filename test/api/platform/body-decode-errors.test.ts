// What a body that does not decode is answered with, word for word as upstream v1.1.8 answered the same bodies
// (asked with curl): go-swagger names the body parameter, reads a stream (cut-off text is "unexpected EOF"),
// names the rest_model type and leaves list positions out of Go's field path; the posture bodies, decoded by a
// hand-written unmarshaller, carry no "parsing … body" prefix and decode into anonymous structs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildTestApp, type TestApp } from '../../support/test-app.js';
import { assertError } from '../../support/conformance.js';
import { createUser, login } from '../../support/factories.js';
import { CLIENT, MANAGEMENT } from '../../support/api-paths.js';

describe('bodies that do not decode', () => {
  let t: TestApp;
  let admin: string;
  let user: string;
  before(async () => {
    t = await buildTestApp();
    admin = await t.loginAsAdmin();
    const created = await createUser(t, admin, { name: 'decode-user' });
    user = await login(t, created.username, created.password);
  });
  after(() => t.close());

  async function causeOf(
    url: string,
    payload: string,
    token = admin,
  ): Promise<{ code?: string; message?: string; field?: string; value?: string }> {
    const result = await t.call({
      method: 'POST',
      url,
      token,
      payload,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(result.status, 400, result.text);
    return (result.body as { error: { cause: Record<string, string> } }).error.cause;
  }
  const message = async (url: string, payload: string, token = admin) => (await causeOf(url, payload, token)).message;

  it('names the body parameter and says "unexpected EOF" for cut-off JSON', async () => {
    assert.equal(
      await message(`${MANAGEMENT}/services`, '{"name": '),
      'parsing service body from "" failed, because unexpected EOF',
    );
    assert.equal(
      await message(`${MANAGEMENT}/service-policies`, '{"name": "x'),
      'parsing policy body from "" failed, because unexpected EOF',
    );
  });

  it('names the rest_model type for a body of the wrong kind and drops list positions from field paths', async () => {
    assert.equal(
      await message(`${MANAGEMENT}/config-types`, '[]'),
      'parsing configType body from "" failed, because json: cannot unmarshal array into Go value of type rest_model.ConfigTypeCreate',
    );
    assert.equal(
      await message(`${MANAGEMENT}/services`, '{"name":"x","encryptionRequired":true,"configs":[7]}'),
      'parsing service body from "" failed, because json: cannot unmarshal number into Go struct field ServiceCreate.configs of type string',
    );
  });

  it('names the rest_model type of a field whose definition is a named Go type', async () => {
    assert.equal(
      await message(`${MANAGEMENT}/authenticate?method=password`, '{"username":"someone","password":7}'),
      'parsing auth body from "" failed, because json: cannot unmarshal number into Go struct field Authenticate.password of type rest_model.Password',
    );
    assert.equal(
      await message(`${MANAGEMENT}/services`, '{"name":"x","encryptionRequired":true,"tags":[]}'),
      'parsing service body from "" failed, because json: cannot unmarshal array into Go struct field ServiceCreate.tags of type rest_model.SubTags',
    );
  });

  it('words posture check bodies as their own unmarshaller does', async () => {
    const url = `${MANAGEMENT}/posture-checks`;
    assert.equal(await message(url, '{"name": '), 'unexpected EOF');
    assert.equal(
      await message(url, '[]'),
      'json: cannot unmarshal array into Go value of type struct { TypeID string "json:\\"typeId\\"" }',
    );
    assert.equal(
      await message(url, '{"name":7,"typeId":"DOMAIN","domains":["a"]}'),
      'json: cannot unmarshal number into Go struct field .name of type string',
    );
  });

  it('words posture responses in bulk as their own unmarshaller does', async () => {
    const url = `${CLIENT}/posture-response-bulk`;
    assert.equal(
      await message(url, '{}', user),
      'json: cannot unmarshal object into Go value of type []json.RawMessage',
    );
    assert.equal(
      await message(url, '[7]', user),
      'json: cannot unmarshal number into Go value of type struct { TypeID string "json:\\"typeId\\"" }',
    );
    assert.equal(
      await message(url, '[{"id":"x","typeId":"OS","type":7}]', user),
      'json: cannot unmarshal number into Go struct field .type of type string',
    );
    assert.equal(await message(url, '[{"name": ', user), 'unexpected EOF');
  });

  it("names a field of a list body's item without the item's position", async () => {
    const result = await t.call({
      method: 'POST',
      url: `${CLIENT}/posture-response-bulk`,
      token: user,
      payload: [{ id: 'mac-check', typeId: 'MAC', macAddresses: null }],
    });
    assertError(result, 400, 'COULD_NOT_VALIDATE', 'macAddresses');
    assert.equal(
      (result.body as { error: { cause: { reason: string } } }).error.cause.reason,
      'macAddresses in body is required',
    );
  });

  it('shows a missing required list as Go prints a nil slice: []', async () => {
    const result = await t.call({
      method: 'POST',
      url: `${MANAGEMENT}/posture-checks`,
      token: admin,
      payload: { name: 'mac', typeId: 'MAC' },
    });
    assertError(result, 400, 'COULD_NOT_VALIDATE', 'macAddresses');
    assert.equal((result.body as { error: { cause: { value: string } } }).error.cause.value, '[]');
  });
});
