import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The workflows entry point, as TypeScript source or compiled JavaScript. */
export const WORKFLOWS_PATH = require.resolve('../workflows');

/** Bundles workflow code once (webpack, ~seconds) so workers and tests start without rebuilding it. */
export async function writeWorkflowBundle(outputPath: string): Promise<void> {
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, logger: new DefaultLogger('WARN') });
  await writeFile(outputPath, code);
}

if (require.main === module) {
  const output = process.argv[2] ?? path.join(__dirname, '..', 'workflow-bundle.js');
  writeWorkflowBundle(output).then(
    () => process.stdout.write(`workflow bundle written to ${output}\n`),
    (error) => {
      process.stderr.write(`bundling workflows failed: ${error}\n`);
      process.exit(1);
    },
  );
}
