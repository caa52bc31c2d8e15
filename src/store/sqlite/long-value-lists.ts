// Long lists of values bound as one JSON array: SQLite refuses a statement with more than 32,766 bound variables,
// and a request can make lists of any length (policy roles, configTypes, links of an entity to every policy).
import {
  BinaryOperationNode,
  InsertQueryNode,
  OperationNodeTransformer,
  PrimitiveValueListNode,
  RawNode,
  ValueNode,
  ValuesNode,
} from 'kysely';
import { joinedValues, LONG_LIST, TransformingPlugin } from '../long-value-lists.js';

type JsonScalar = string | number | boolean | null;

const isJsonScalar = (value: unknown): value is JsonScalar =>
  value === null ||
  typeof value === 'string' ||
  typeof value === 'boolean' ||
  (typeof value === 'number' && Number.isFinite(value));

/**
 * `SELECT value FROM json_each(?)`, the list bound as one parameter, in parentheses or not (never twice: `x IN
 * ((SELECT …))` would compare with the first value only); undefined when a value has no JSON form.
 */
function jsonList(values: readonly unknown[], parenthesized: boolean): RawNode | undefined {
  if (!values.every(isJsonScalar)) return undefined;
  const [open, close] = parenthesized ? ['(', ')'] : ['', ''];
  return RawNode.create(
    [`${open}SELECT value FROM json_each(`, `)${close}`],
    [ValueNode.create(JSON.stringify(values))],
  );
}

const IN_OPERATORS = new Set(['in', 'not in']);

/**
 * Rewrites, only past LONG_LIST values: `x in (?, ?, …)` from the query builder, `IN (${sql.join(values)})` in raw
 * SQL, and multi-row `insert … values (…), (…)` into `insert … select value ->> 0, … from json_each(?)`.
 */
class LongListTransformer extends OperationNodeTransformer {
  protected override transformBinaryOperation(node: BinaryOperationNode): BinaryOperationNode {
    const transformed = super.transformBinaryOperation(node);
    const { operator, rightOperand } = transformed;
    if (!('operator' in operator) || !IN_OPERATORS.has(String(operator.operator))) return transformed;
    if (!PrimitiveValueListNode.is(rightOperand) || rightOperand.values.length <= LONG_LIST) return transformed;
    const list = jsonList(rightOperand.values, true);
    return list ? { ...transformed, rightOperand: list } : transformed;
  }

  protected override transformRaw(node: RawNode): RawNode {
    const transformed = super.transformRaw(node);
    const parameters = transformed.parameters.map((parameter, index) => {
      const before = transformed.sqlFragments[index] ?? '';
      const after = transformed.sqlFragments[index + 1] ?? '';
      if (!/\bIN\s*\(\s*$/i.test(before) || !/^\s*\)/.test(after)) return parameter;
      const values = joinedValues(parameter);
      // The parentheses written around the list now hold the subquery.
      return (values && jsonList(values, false)) ?? parameter;
    });
    return { ...transformed, parameters };
  }

  protected override transformInsertQuery(node: InsertQueryNode): InsertQueryNode {
    const transformed = super.transformInsertQuery(node);
    const { values, columns } = transformed;
    if (!values || !ValuesNode.is(values) || !columns) return transformed;
    const rows = values.values.map((row) => (PrimitiveValueListNode.is(row) ? row.values : undefined));
    if (rows.length * columns.length <= LONG_LIST || !rows.every((row) => row?.every(isJsonScalar))) return transformed;
    const picks = columns.map((_, index) => `value ->> ${index}`).join(', ');
    // `where true`: without a WHERE, SQLite would read an upsert's ON CONFLICT as a join constraint.
    const select = RawNode.create(
      [`select ${picks} from json_each(`, ') where true'],
      [ValueNode.create(JSON.stringify(rows))],
    );
    return { ...transformed, values: select };
  }
}

export class LongValueListsPlugin extends TransformingPlugin {
  constructor() {
    super(new LongListTransformer());
  }
}
