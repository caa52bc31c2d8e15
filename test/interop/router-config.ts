// A v1.1.8 router's config file as the interop runs write it (upstream's `ziti create config router` templates, cut to
// what a loopback test network needs).
import { join } from 'node:path';

export interface LinkConfig {
  /** A link listener on this loopback port. */
  port?: number;
  groups?: string[];
  dialerGroups?: string[];
}

const yamlList = (values: string[]) => `[${values.map((value) => JSON.stringify(value)).join(', ')}]`;

/**
 * A v1.1.8 router's config: its identity files in `dir`, the controller at `ctrlEndpoint`, an edge listener on
 * `edgePort` (without one a transit router: upstream's fabric template, `csr` at the top), a link dialer, and a link
 * listener when `link.port` is given (upstream's `link.listeners`, groups default `default`).
 */
export function routerConfig(
  dir: string,
  ctrlEndpoint: string,
  edgePort: number | undefined,
  link: LinkConfig = {},
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
  const edge =
    edgePort === undefined
      ? csr('')
      : `listeners:
  - binding: edge
    address: tls:127.0.0.1:${edgePort}
    options:
      advertise: 127.0.0.1:${edgePort}
edge:
${csr('  ')}`;
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
