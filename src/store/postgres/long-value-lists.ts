// Long lists of values bound as one array parameter: `x IN (?, ?, …)` becomes `x = ANY(?)` and `x NOT IN (…)`
// `x <> ALL(?)` (the same answers, NULLs included), and a long multi-row insert one `jsonb_populate_recordset(?)`
// over the table's own row type. PostgreSQL refuses more than 65,535 parameters in a statement, and one parameter
// keeps the statement text the same whatever the list's length.
import {
  BinaryOperationNode,
  InsertQueryNode,
  OperationNodeTransformer,
  OperatorNode,
  PrimitiveValueListNode,
  RawNode,
  TableNode,
  ValueNode,
  ValuesNode,
} from 'kysely';
import { joinedValues, LONG_LIST, TransformingPlugin } from '../long-value-lists.js';

type Scalar = string | number | null;

const isScalar = (value: unknown): value is Scalar =>
  value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));

const QUANTIFIED = { in: ['=', 'ANY'], 'not in': ['<>', 'ALL'] } as const;

/** `ANY(?)` / `ALL(?)` over one array parameter; undefined when a value cannot go in a PostgreSQL array. */
function arrayOperand(values: readonly unknown[], quantifier: 'ANY' | 'ALL'): RawNode | undefined {
  if (!values.every(isScalar) || values.length === 0) return undefined;
  return RawNode.create([`${quantifier}(`, ')'], [ValueNode.create(values)]);
}

class LongListTransformer extends OperationNodeTransformer {
  protected override transformBinaryOperation(node: BinaryOperationNode): BinaryOperationNode {
    const transformed = super.transformBinaryOperation(node);
    const { operator, rightOperand } = transformed;
    if (!OperatorNode.is(operator) || (operator.operator !== 'in' && operator.operator !== 'not in'))
      return transformed;
    if (!PrimitiveValueListNode.is(rightOperand) || rightOperand.values.length <= LONG_LIST) return transformed;
    const [comparison, quantifier] = QUANTIFIED[operator.operator];
    const array = arrayOperand(rightOperand.values, quantifier);
    return array ? { ...transformed, operator: OperatorNode.create(comparison), rightOperand: array } : transformed;
  }

  /** `IN (${sql.join(values)})` in raw SQL: the `IN (` before the list becomes `= ANY(`. */
  protected override transformRaw(node: RawNode): RawNode {
    const transformed = super.transformRaw(node);
    const fragments = [...transformed.sqlFragments];
    const parameters = transformed.parameters.map((parameter, index) => {
      const before = fragments[index] ?? '';
      const match = /\b(NOT\s+)?IN\s*\(\s*$/i.exec(before);
      if (!match || !/^\s*\)/.test(fragments[index + 1] ?? '')) return parameter;
      const values = joinedValues(parameter);
      const quantifier = match[1] ? 'ALL' : 'ANY';
      const array = values && arrayOperand(values, quantifier);
      if (!array) return parameter;
      fragments[index] = `${before.slice(0, match.index)}${match[1] ? '<>' : '='} `;
      // The parenthesis written after the list closes ANY( … ).
      return RawNode.create([`${quantifier}(`, ''], [ValueNode.create(values)]);
    });
    return { ...transformed, sqlFragments: fragments, parameters };
  }

  protected override transformInsertQuery(node: InsertQueryNode): InsertQueryNode {
    const transformed = super.transformInsertQuery(node);
    const { values, columns, into } = transformed;
    if (!values || !ValuesNode.is(values) || !columns || !into || !TableNode.is(into)) return transformed;
    if (values.values.length * columns.length <= LONG_LIST) return transformed;
    const rows: Array<readonly Scalar[]> = [];
    for (const row of values.values) {
      if (!PrimitiveValueListNode.is(row) || !row.values.every(isScalar)) return transformed;
      rows.push(row.values);
    }
    const names = columns.map((column) => column.column.name);
    const records = rows.map((row) => Object.fromEntries(names.map((name, index) => [name, row[index]])));
    const table = into.table.identifier.name;
    const picks = names.map((name) => `"${name}"`).join(', ');
    // The table's own row type gives every column its type; `WHERE true` keeps an ON CONFLICT clause unambiguous.
    const select = RawNode.create(
      [`SELECT ${picks} FROM jsonb_populate_recordset(NULL::"${table}", CAST(`, ' AS jsonb)) WHERE true'],
      [ValueNode.create(JSON.stringify(records))],
    );
    return { ...transformed, values: select };
  }
}

export class LongValueListsPlugin extends TransformingPlugin {
  constructor() {
    super(new LongListTransformer());
  }
}
