import { FIRST_LOAD_BUDGET, measureFirstLoad, WEB_OUT } from '../../scripts/buildWeb';

/** The dashboard's first-load JavaScript against its budget (a size check; the test set-up built the bundle). */
it('keeps the first-load JavaScript within 150 KB gzipped', async () => {
  const { scriptBytes, scriptGzipBytes } = await measureFirstLoad(WEB_OUT);
  process.stdout.write(
    `[dashboard] first-load JavaScript: ${(scriptBytes / 1024).toFixed(1)} KB, ${(scriptGzipBytes / 1024).toFixed(1)} KB gzipped (budget ${FIRST_LOAD_BUDGET / 1024} KB)\n`,
  );
  expect(scriptGzipBytes).toBeGreaterThan(1000);
  expect(scriptGzipBytes).toBeLessThanOrEqual(FIRST_LOAD_BUDGET);
});
