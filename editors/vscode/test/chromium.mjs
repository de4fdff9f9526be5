// What the headless-Chromium page tests share: the browser to run
// ($CHROMIUM, else the first of chromium, chromium-browser, google-chrome
// on PATH; a missing one fails the test, never skips it).
import { execFileSync } from 'node:child_process';

export function findChromium(suite) {
  const found = process.env.CHROMIUM || ['chromium', 'chromium-browser', 'google-chrome'].find((b) => {
    try {
      execFileSync('sh', ['-c', `command -v ${b}`], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  });
  if (!found) {
    console.log(`FAIL headless Chromium is installed (apt-get install chromium)\n\n${suite}: 0 passed, 1 failed`);
    process.exit(1);
  }
  return found;
}
