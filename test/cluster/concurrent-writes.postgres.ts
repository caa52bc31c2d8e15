// Two instances writing at once on one PostgreSQL schema (npm run test:postgres; fails without ZITI_TEST_DATABASE_URL).
import { describeConcurrentWrites } from '../support/concurrent-writes.js';
import { postgresSchema } from '../support/two-instances.js';

describeConcurrentWrites('PostgreSQL', postgresSchema);
