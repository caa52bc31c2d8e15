// Two instances writing at once on one SQLite file (the invalidation and turn-taking `workers` rely on); the same
// scenario runs on PostgreSQL under npm run test:postgres (test/cluster/concurrent-writes.postgres.ts).
import { describeConcurrentWrites } from '../../support/concurrent-writes.js';
import { sqliteFile } from '../../support/two-instances.js';

describeConcurrentWrites('SQLite', sqliteFile);
