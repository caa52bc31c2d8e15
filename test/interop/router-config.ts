// A v1.1.8 router's config file as the interop runs write it (upstream's `ziti create config router` templates, cut to
// what a loopback test network needs).
import { join } from 'node:path';

export interface LinkConfig {
  /** A link listener on this loopback port. */
  port?: number;
  groups?: string[];
  dialerGroups?: string[];
}

/**
 * A fabric xgress listener (upstream's `binding: proxy`, or `proxy_udp` for `udp`): every connection accepted on the
 * loopback `port` (every new UDP source) asks the controller for a circuit to `service` (CircuitRequest) and is joined
 * to it. The service is a key of the listener
 * itself, beside `address` (etc/tmpl/edge.router.yml; router.go hands the whole entry to the factory), not under
 * `options`: there the router refuses to start ("missing 'service' configuration option").
 */
export interface ProxyListener {
  service: string;
  port: number;
  /** Default tcp. */
  protocol?: 'tcp' | 'udp';
}

const yamlList = (values: string[]) => `[${values.map((value) => JSON.stringify(value)).join(', ')}]`;

/**
 * A v1.1.8 router's config: its identity files in `dir`, the controller at `ctrlEndpoint`, an edge listener on
 * `edgePort` (without one a transit router: upstream's fabric template, `csr` at the top), a link dialer, a link
 * listener when `link.port` is given (upstream's `link.listeners`, groups default `default`), and `proxies`.
 */
export function routerConfig(
  dir: string,
  ctrlEndpoint: string,
  edgePort: number | undefined,
  link: LinkConfig = {},
  proxies: ProxyListener[] = [],
): string {
  const csr = (indent: string) =>
    [
      'csr:',
      '  country: US',
      '  province: NC',
      '  locality: Charlotte',
      '  organization: NetFoundry',
      '  organizationalUnit: Ziti',
      '  sans:',
      '    dns:',
      '      - localhost',
      '    ip:',
      '      - "127.0.0.1"',
    ]
      .map((line) => `${indent}${line}`)
      .join('\n');
  const dialerGroups = link.dialerGroups ? `\n      groups: ${yamlList(link.dialerGroups)}` : '';
  const listener =
    link.port === undefined
      ? ''
      : `
  listeners:
    - binding: transport
      bind: tls:127.0.0.1:${link.port}
      advertise: tls:127.0.0.1:${link.port}${link.groups ? `\n      groups: ${yamlList(link.groups)}` : ''}`;
  const proxyListeners = proxies.map(
    (proxy) => `
  - binding: ${proxy.protocol === 'udp' ? 'proxy_udp' : 'proxy'}
    address: ${proxy.protocol ?? 'tcp'}:127.0.0.1:${proxy.port}
    service: ${JSON.stringify(proxy.service)}`,
  );
  const edgeListener = `
  - binding: edge
    address: tls:127.0.0.1:${edgePort}
    options:
      advertise: 127.0.0.1:${edgePort}`;
  const listeners = [...(edgePort === undefined ? [] : [edgeListener]), ...proxyListeners];
  const edge = `${listeners.length > 0 ? `listeners:${listeners.join('')}\n` : ''}${
    edgePort === undefined ? csr('') : `edge:\n${csr('  ')}`
  }`;
  return `v: 3
identity:
  cert: ${join(dir, 'router.cert')}
  server_cert: ${join(dir, 'router.server.cert')}
  key: ${join(dir, 'router.key')}
  ca: ${join(dir, 'router.cas')}
ctrl:
  endpoint: ${ctrlEndpoint}
link:
  dialers:
    - binding: transport${dialerGroups}${listener}
${edge}
`;
}
