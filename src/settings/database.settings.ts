// Where the data lives: SQLite in the home folder, or a PostgreSQL database (docs/operating.md, "On PostgreSQL").
import { databaseUrl, integer, type SettingSpec } from './setting-spec.js';

export interface DatabaseSettings {
  /** `postgres://…`: the data lives in that PostgreSQL database; undefined: in SQLite in the home folder. */
  databaseUrl: string | undefined;
  /**
   * PostgreSQL connections each process keeps at most (reads and writes share them; see docs/operating.md, "On
   * PostgreSQL").
   */
  databasePoolSize: number;
}

export const databaseSettingSpecs: readonly SettingSpec<DatabaseSettings>[] = [
  { key: 'databaseUrl', yamlPath: 'db.url', env: 'ZITI_DATABASE_URL', flag: 'database-url', parse: databaseUrl },
  {
    key: 'databasePoolSize',
    yamlPath: 'db.poolSize',
    env: 'ZITI_DATABASE_POOL_SIZE',
    flag: 'database-pool-size',
    parse: integer(4, 1000),
    default: 10,
  },
];
