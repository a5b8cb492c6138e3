/**
 * Installed as a user installs it, in a real VS Code that has never had it: Extensions: Install
 * from VSIX…, the file typed into VS Code's own dialog. VS Code opens the walkthrough by itself
 * (its `workbench.welcomePage.walkthroughs.openOnInstall`, on by default), with its three steps.
 */
import { newWorkspace } from './fixtures';
import { poll, VSCode } from './harness';

describe('Retained Outputs installed from a VSIX in a real VS Code', () => {
  let vs: VSCode;
  before(async () => {
    vs = await VSCode.start({ workspace: newWorkspace(), installed: false });
  });
  afterEach(async function () {
    await vs.afterTest(this.currentTest, 'install-');
  });
  after(async () => vs?.close());

  it('opens its walkthrough on install, its three steps there', async () => {
    await vs.runCommand('Extensions: Install from VSIX');
    // VS Code's own file dialog: the path typed, then OK.
    const input = vs.page.locator('.quick-input-widget input');
    await input.waitFor();
    await input.fill(vs.vsix);
    await vs.page.keyboard.press('Enter');
    const page = vs.page.locator('.editor-group-container');
    await page.getByText('Get started with Retained Outputs').first().waitFor({ timeout: 120_000 });
    for (const step of ['Set up an agent', 'See a stub', 'Open the inspector'])
      await page.getByText(step, { exact: true }).first().waitFor({ timeout: 30_000 });
    await poll(
      'the walkthrough tab',
      () => vs.tabTitles(),
      (tabs) => tabs.some((t) => /Welcome|Walkthrough|Get started/i.test(t)),
    );
    await vs.screenshot('walkthrough-on-install');
  });
});
