// What both stores' long-value-list plugins share (src/store/sqlite/long-value-lists.ts binds a long list as one
// JSON array, src/store/postgres/long-value-lists.ts as one PostgreSQL array): when a list counts as long, how a
// raw `sql.join(values)` list is recognised, and the plugin wrapper around a node transformer.
import {
  RawNode,
  ValueNode,
  type KyselyPlugin,
  type OperationNode,
  type OperationNodeTransformer,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';

/** Lists up to this long keep one parameter per value: short lists keep their plans and statement cache entries. */
export const LONG_LIST = 100;

/** The values of a long `sql.join(values)`: a raw node whose children alternate values and one `, ` separator. */
export function joinedValues(node: OperationNode): unknown[] | undefined {
  if (!RawNode.is(node) || node.parameters.length < 2 * LONG_LIST + 1) return undefined;
  const values: unknown[] = [];
  for (const [index, child] of node.parameters.entries()) {
    if (index % 2 === 0) {
      if (!ValueNode.is(child)) return undefined;
      values.push(child.value);
    } else if (!RawNode.is(child) || child.parameters.length > 0 || child.sqlFragments.join('') !== ', ') {
      return undefined;
    }
  }
  return values;
}

/** A plugin that rewrites every query with `transformer` and leaves results alone. */
export class TransformingPlugin implements KyselyPlugin {
  constructor(private readonly transformer: OperationNodeTransformer) {}

  transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
    return this.transformer.transformNode(node);
  }

  transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return Promise.resolve(result);
  }
}
