// Process entry: read settings, open the controller, listen over HTTPS, say where and how to log in, and stop
// gracefully on SIGTERM / SIGINT (a second signal stops at once).
import cluster from 'node:cluster';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { loadSettings } from './settings/load-settings.js';
import { SettingsError, type Settings } from './settings/settings.schema.js';
import { openController, type Controller } from './controller.js';
import { writeAdminPasswordFile } from './auth/bootstrap-admin.js';
import { followPrimary, runPrimary, workerIndex } from './workers.js';
import { errorMessage } from './lib/error-message.js';

const LOG_FLUSH_INTERVAL_MS = 1000;

async function main(): Promise<void> {
  const settings = loadSettings({ argv: process.argv.slice(2) });
  // Log lines (one per request with the access log) are written asynchronously, 4 KiB at a time, so that logging
  // costs requests next to nothing; a timer writes out what a quiet second left behind, and exit flushes.
  const logger = pino({ level: settings.logLevel }, pino.destination({ dest: 1, sync: false, minLength: 4096 }));
  const flushTimer = setInterval(() => logger.flush(), LOG_FLUSH_INTERVAL_MS).unref();
  // Once per start: workers read the same file, the primary (or the single process) says it.
  if (cluster.isPrimary && settings.ignoredSettings.length > 0)
    logger.warn(
      { file: settings.configFile, ignored: settings.ignoredSettings },
      'settings file keys without a meaning here, ignored (docs/moving-from-upstream.md)',
    );
  if (settings.workers > 1 && cluster.isPrimary) {
    runPrimary(settings.workers, logger, (code) => {
      clearInterval(flushTimer);
      logger.flush(() => process.exit(code));
    });
    return;
  }
  const worker = workerIndex();
  const name = settings.controllerName ?? settings.advertisedHost;
  const controller = await openController(settings, {
    tls: true,
    logger,
    ...(worker ? { instanceName: `${name}#${worker}` } : {}),
  });
  const { admin, app } = controller;
  if (admin.created && admin.generatedPassword) {
    const file = writeAdminPasswordFile(settings.home, admin.generatedPassword);
    // Printed once on stdout, never through the logger, so it does not end up in log files.
    process.stdout.write(
      `Default admin "${settings.adminUsername}" created with password: ${admin.generatedPassword}\n(also in ${file})\n`,
    );
  }
  await app.listen({ host: settings.bindAddress, port: settings.advertisedPort });
  // With `workers` > 1 every worker listens here too: node:cluster shares the port, as it does the API's. A control
  // port equal to the API port means the API port alone serves routers (by ALPN), as upstream's quickstart does.
  if (!servesControlOnApiPort(settings))
    await controller.fabric.controlPlane.listen(settings.ctrlBindAddress, settings.ctrlAdvertisedPort);
  if (worker === undefined || worker === 1) process.stdout.write(banner(settings, controller));
  logger.info(
    {
      address: `https://${settings.advertisedHost}:${settings.advertisedPort}`,
      bind: settings.bindAddress,
      home: settings.home,
    },
    'controller ready',
  );

  let stopping = false;
  const exit = (code: number) => {
    clearInterval(flushTimer);
    // Exit even if the log cannot drain (its reader is gone).
    setTimeout(() => process.exit(code), LOG_FLUSH_INTERVAL_MS).unref();
    logger.flush(() => process.exit(code));
  };
  const stop = (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, 'stopping at once');
      exit(1);
      return;
    }
    stopping = true;
    logger.info({ signal, timeoutMs: settings.shutdownTimeoutMs }, 'stopping: finishing requests in flight');
    controller.close().then(
      () => {
        logger.info('stopped');
        exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'unclean stop');
        exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  if (worker === undefined) process.on('SIGINT', () => stop('SIGINT'));
  else followPrimary(stop);
}

const servesControlOnApiPort = (settings: Settings) => settings.ctrlAdvertisedPort === settings.advertisedPort;

/** What an operator needs on start: where it listens, its home, and how to log in. */
function banner(settings: Settings, { deps, metricsListener }: Controller): string {
  const advertised = `https://${settings.advertisedHost}:${settings.advertisedPort}`;
  const passwordFile = join(settings.home, 'admin-password');
  const password = existsSync(passwordFile) ? `"$(cat ${passwordFile})"` : '<admin.password / ZITI_PWD>';
  const lines = [
    `ziti-ts-controller ${deps.build.version} (${deps.build.revision}) listening on ${settings.bindAddress}:${settings.advertisedPort}`,
    `  client API:     ${advertised}/edge/client/v1`,
    `  management API: ${advertised}/edge/management/v1`,
    `  routers:        ctrl.endpoint tls:${settings.ctrlAdvertisedHost ?? settings.advertisedHost}:${settings.ctrlAdvertisedPort}${servesControlOnApiPort(settings) ? ' (the API port, by ALPN ziti-ctrl)' : ' (or the API port, by ALPN ziti-ctrl)'}`,
    `  home:           ${settings.home} (database ${settings.databaseUrl ? 'PostgreSQL' : 'ctrl.db'}, PKI ${settings.pkiServerCert ? 'in the files the settings name' : 'in pki/'})`,
    ...(settings.workers > 1 ? [`  workers:        ${settings.workers} processes`] : []),
    ...(metricsListener
      ? [`  metrics:        http://${metricsListener.address.address}:${metricsListener.address.port}/metrics`]
      : []),
    `  log in:         ziti edge login ${settings.advertisedHost}:${settings.advertisedPort} -u ${settings.adminUsername} -p ${password} -y`,
    `                  curl -sk -H 'content-type: application/json' -d '{"username":"${settings.adminUsername}","password":"…"}' '${advertised}/edge/management/v1/authenticate?method=password'`,
  ];
  return `${lines.join('\n')}\n`;
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof SettingsError ? 'settings: ' : ''}${errorMessage(error)}\n`);
  process.exit(1);
});
