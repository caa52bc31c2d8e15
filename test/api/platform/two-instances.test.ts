// Two instances on one SQLite file (each its own connection, as two processes on the file have): the invalidation
// protocol that `workers` relies on. The same scenarios run on PostgreSQL under npm run test:postgres.
import { describeTwoInstances, sqliteFile } from '../../support/two-instances.js';

describeTwoInstances('SQLite', sqliteFile);
