// Every sequence the harness replays, in order. A new area adds a file here; a new case adds a line to its file.
import type { Sequence } from '../steps.js';
import { auth } from './auth.js';
import { authPolicies } from './auth-policies.js';
import { client } from './client.js';
import { enrollment } from './enrollment.js';
import { entities, inUse } from './entities.js';
import { extJwt } from './ext-jwt.js';
import { fabric } from './fabric.js';
import { identities } from './identities.js';
import { informational } from './informational.js';
import { mfa } from './mfa.js';
import { operations } from './operations.js';
import { platform } from './platform.js';
import { posture } from './posture.js';
import { sessions } from './sessions.js';

export const corpus: Sequence[] = [
  ...platform,
  ...informational,
  ...entities,
  ...inUse,
  ...identities,
  ...auth,
  ...enrollment,
  ...client,
  ...sessions,
  ...posture,
  ...mfa,
  ...authPolicies,
  ...extJwt,
  ...operations,
  ...fabric,
];
