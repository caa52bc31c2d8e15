// The generated per-operation types: committed as the generator writes them, and shaped as validation lets through.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { operationTypesFile, outputFiles, specDir } from '../../scripts/generate-contract.js';
import { operationTypesSource } from '../../scripts/operation-types.js';

const committed = (file: string) => readFileSync(path.join(specDir, file), 'utf8');

/** A one-operation management document around `definitions` and the operation's parameters. */
function generate(parameters: object[], definitions: object = {}, consumes = ['application/json']): string {
  const empty = JSON.stringify({ paths: {}, definitions: {} });
  const management = JSON.stringify({
    consumes,
    definitions,
    paths: { '/things/{id}': { put: { operationId: 'updateThing', parameters } } },
  });
  return operationTypesSource({ client: empty, management, fabric: empty });
}

const lineOf = (source: string, start: string) => source.split('\n').find((line) => line.startsWith(start)) ?? '';

describe('operation types', () => {
  it('are committed as the generator writes them from the committed contract', () => {
    const documents = {
      client: committed(outputFiles.client),
      management: committed(outputFiles.management),
      fabric: committed(outputFiles.fabric),
    };
    assert.ok(
      readFileSync(operationTypesFile, 'utf8') === operationTypesSource(documents),
      'src/http/spec/gen/operations.ts is stale: run npm run contract',
    );
  });

  it('type path, query and header parameters as bound (an array ignores its default)', () => {
    const source = generate([
      { name: 'id', in: 'path', type: 'string', required: true },
      { name: 'limit', in: 'query', type: 'integer' },
      {
        name: 'roleFilter',
        in: 'query',
        type: 'array',
        items: { type: 'string' },
        collectionFormat: 'multi',
        default: ['#all'],
      },
      { name: 'semantic', in: 'query', type: 'string', enum: ['allOf', 'anyOf'], default: 'allOf' },
      { name: 'MFA-Validation-Code', in: 'header', type: 'string' },
    ]);
    assert.equal(
      lineOf(source, '  updateThing:'),
      '  updateThing: { params: { id: string }; query: { limit?: number; roleFilter?: string[]; semantic: ("allOf" | "anyOf") }; headers: { "mfa-validation-code"?: string }; body: Json | undefined };',
    );
  });

  it('type a body: required present, optional maybe null, an optional enum maybe its zero value, shapeless as JSON', () => {
    const definitions = {
      thing: {
        type: 'object',
        required: ['name', 'data'],
        properties: {
          name: { type: 'string' },
          data: { type: 'object' },
          kind: { type: 'string', enum: ['A', 'B'] },
          tags: { type: 'object', additionalProperties: { type: 'string' } },
          count: { type: 'integer', 'x-nullable': true },
        },
      },
    };
    const source = generate(
      [{ name: 'thing', in: 'body', required: true, schema: { $ref: '#/definitions/thing' } }],
      definitions,
    );
    assert.match(lineOf(source, '  updateThing:'), /body: ManagementThing \};$/);
    assert.equal(
      lineOf(source, 'export type ManagementThing '),
      'export type ManagementThing = { name: string; data: JsonPresent; kind?: "A" | "B" | null | \'\'; tags?: { [key: string]: string } | null; count?: number | null };',
    );
  });

  it('type a discriminated body as the union of its subtypes, and a text body where other media types are consumed', () => {
    const definitions = {
      check: {
        type: 'object',
        discriminator: 'typeId',
        required: ['typeId', 'name'],
        properties: { typeId: { type: 'string' }, name: { type: 'string' } },
      },
      macCheck: {
        'x-class': 'MAC',
        allOf: [
          { $ref: '#/definitions/check' },
          { type: 'object', properties: { macs: { type: 'array', items: { type: 'string' } } } },
        ],
      },
    };
    const source = generate([{ name: 'check', in: 'body', schema: { $ref: '#/definitions/check' } }], definitions, [
      'application/json',
      'text/plain',
    ]);
    assert.match(lineOf(source, '  updateThing:'), /body: ManagementCheck \| string \| undefined \};$/);
    assert.equal(
      lineOf(source, 'export type ManagementCheck '),
      'export type ManagementCheck = (ManagementCheckBase & { typeId: "check" }) | (ManagementMacCheck & { typeId: "MAC" });',
    );
    assert.equal(
      lineOf(source, 'export type ManagementCheckBase '),
      'export type ManagementCheckBase = { name: string };',
    );
    assert.equal(
      lineOf(source, 'export type ManagementMacCheck '),
      'export type ManagementMacCheck = ManagementCheckBase & { macs?: string[] | null };',
    );
  });
});
