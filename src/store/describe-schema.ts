// The shape of a migrated database, described the same way for both stores.

export interface ColumnDescription {
  name: string;
  type: 'text' | 'integer';
  isNullable: boolean;
  hasDefault: boolean;
}

export interface TableDescription {
  name: string;
  isView: boolean;
  columns: ColumnDescription[];
}
