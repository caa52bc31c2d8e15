// What choosing a path costs per circuit (issue 24): shortestPath over a random connected network of N routers with
// about `degree` links each, and routePlan for the path found. Run: npx tsx bench/path-selection.ts [routers] [degree]
import { shortestPath, type PathLink, type PathRouter } from '../src/fabric/links/paths.js';
import { routePlan } from '../src/fabric/circuits/route-plan.js';

const count = Number(process.argv[2] ?? 100);
const degree = Number(process.argv[3] ?? 6);
let seed = 42;
const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;

const routers = new Map<string, PathRouter>();
for (let i = 0; i < count; i++)
  routers.set(`r${i}`, { id: `r${i}`, cost: Math.floor(random() * 20), noTraversal: false });
const links: PathLink[] = [];
for (let i = 1; i < count; i++)
  links.push({
    id: `l${i}-${i - 1}`,
    srcRouterId: `r${i}`,
    dstRouterId: `r${i - 1}`,
    cost: 1 + Math.floor(random() * 100),
    usable: true,
  });
while (links.length < (count * degree) / 2) {
  const [a, b] = [Math.floor(random() * count), Math.floor(random() * count)];
  if (a !== b)
    links.push({
      id: `l${links.length}`,
      srcRouterId: `r${a}`,
      dstRouterId: `r${b}`,
      cost: 1 + Math.floor(random() * 100),
      usable: true,
    });
}

const snapshot = { routers, links };
const rounds = Math.max(200, Math.floor(200_000 / count));
let hops = 0;
const started = process.hrtime.bigint();
for (let i = 0; i < rounds; i++) {
  const path = shortestPath(snapshot, `r${Math.floor(random() * count)}`, `r${Math.floor(random() * count)}`)!;
  hops += path.linkIds.length;
  routePlan({
    circuitId: 'c',
    attempt: 0,
    ingressId: 'i',
    egressId: 'e',
    path,
    terminator: { binding: 'edge', address: 't' },
    dialPeerData: new Map(),
    tags: {},
    remainingMs: 10_000,
  });
}
const perPath = Number(process.hrtime.bigint() - started) / rounds / 1e3;
console.log(
  JSON.stringify({
    routers: count,
    links: links.length,
    rounds,
    meanHops: +(hops / rounds).toFixed(2),
    microsecondsPerPathAndPlan: +perPath.toFixed(1),
  }),
);
