// The order test files start in: vitest's own (failed first, then longest by its cache, else largest),
// except that files which wait out real time start before all others. Begun last on a fresh clone
// (no cache, and small), a file that waits 6 minutes set the end of the whole run.
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Files whose time is a wait the product fixes: the idle stop's shortest setting, 5 minutes. */
const WAITING_FILES = ["test/e2e/idle-stop.test.ts"];

export class WaitingFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const waits = (file: TestSpecification) => WAITING_FILES.some((name) => file.moduleId.endsWith(name));
    return [...sorted.filter(waits), ...sorted.filter((file) => !waits(file))];
  }
}
