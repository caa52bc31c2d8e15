// Process entry: read settings, open the controller, listen over HTTPS, stop cleanly on SIGTERM / SIGINT.
import { loadSettings } from './settings/load-settings.js';
import { SettingsError } from './settings/settings.schema.js';
import { openController } from './controller.js';
import { writeAdminPasswordFile } from './auth/bootstrap-admin.js';

async function main(): Promise<void> {
  const settings = loadSettings({ argv: process.argv.slice(2) });
  const controller = await openController(settings, { tls: true });
  const { admin, app, deps } = controller;
  if (admin.created && admin.generatedPassword) {
    const file = writeAdminPasswordFile(settings.home, admin.generatedPassword);
    // Printed once on stdout, never through the logger, so it does not end up in log files.
    process.stdout.write(`Default admin "${settings.adminUsername}" created with password: ${admin.generatedPassword}\n(also in ${file})\n`);
  }
  await app.listen({ host: settings.bindAddress, port: settings.advertisedPort });
  deps.logger.info(
    { address: `https://${settings.advertisedHost}:${settings.advertisedPort}`, bind: settings.bindAddress, home: settings.home },
    'controller ready',
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    deps.logger.info({ signal }, 'stopping');
    controller.close().then(
      () => process.exit(0),
      (error: unknown) => {
        deps.logger.error({ err: error }, 'unclean stop');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof SettingsError ? 'settings: ' : ''}${(error as Error).message}\n`);
  process.exit(1);
});
