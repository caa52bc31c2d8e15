// The network of routers (upstream v1.1.8 controller/config/config_network.go, the settings file's `network:`
// section): how long a route waits, how many attempts a dial gets, the cost every router counts at least, and the
// cycle that moves circuits onto cheaper paths (smart rerouting). Keys, units and defaults as upstream's; upstream
// reads them from the file only, so there are no variables or flags.
import { integer, type Parse, type SettingSpec } from './setting-spec.js';

export interface NetworkSettings {
  /** How often the network's cycle runs (smart rerouting among it): upstream `cycleSeconds`, 60. */
  networkCycleMs: number;
  /** How long a route waits for each router's result: upstream `routeTimeoutSeconds`, 10. */
  networkRouteTimeoutMs: number;
  /** Attempts a dial gets, in all: upstream `createCircuitRetries`, 2. */
  networkCreateCircuitRetries: number;
  /** The cost each router of a path counts at least: upstream `minRouterCost`, 10. */
  networkMinRouterCost: number;
  /** The share of circuits a cycle may move: upstream `smart.rerouteFraction`, 0.02. */
  networkSmartRerouteFraction: number;
  /** The most circuits a cycle moves: upstream `smart.rerouteCap`, 4. */
  networkSmartRerouteCap: number;
  /** How much cheaper a new path must be for a circuit to move: upstream `smart.minCostDelta`, 15. */
  networkSmartMinCostDelta: number;
}

/** Whole seconds (upstream reads an int), kept in ms as every other duration here. */
const seconds =
  (min: number, max: number): Parse<number> =>
  (raw) =>
    integer(min, max)(raw) * 1000;

/** A number from 0 to 1 (upstream reads a float). */
const fraction: Parse<number> = (raw) => {
  const value = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1)
    throw new Error('must be a number from 0 to 1');
  return value;
};

const UINT32 = 2 ** 32 - 1;

export const networkSettingSpecs: readonly SettingSpec<NetworkSettings>[] = [
  { key: 'networkCycleMs', yamlPath: 'network.cycleSeconds', parse: seconds(1, 86_400), default: 60_000 },
  {
    key: 'networkRouteTimeoutMs',
    yamlPath: 'network.routeTimeoutSeconds',
    parse: seconds(1, 3600),
    default: 10_000,
  },
  {
    key: 'networkCreateCircuitRetries',
    yamlPath: 'network.createCircuitRetries',
    // Upstream accepts 0 and then never routes; at least one attempt is the only useful reading.
    parse: integer(1, 100),
    default: 2,
  },
  { key: 'networkMinRouterCost', yamlPath: 'network.minRouterCost', parse: integer(0, 65_535), default: 10 },
  {
    key: 'networkSmartRerouteFraction',
    yamlPath: 'network.smart.rerouteFraction',
    parse: fraction,
    default: 0.02,
  },
  { key: 'networkSmartRerouteCap', yamlPath: 'network.smart.rerouteCap', parse: integer(0, UINT32), default: 4 },
  {
    key: 'networkSmartMinCostDelta',
    yamlPath: 'network.smart.minCostDelta',
    parse: integer(0, UINT32),
    default: 15,
  },
];
