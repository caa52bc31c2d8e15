// The two-instance scenarios on one PostgreSQL schema (npm run test:postgres; fails without ZITI_TEST_DATABASE_URL).
import { describeTwoInstances, postgresSchema } from '../support/two-instances.js';

describeTwoInstances('PostgreSQL', postgresSchema);
