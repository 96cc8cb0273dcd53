// Counts what Durable Objects write while a test watches: SQLite rows written (the rowsWritten of
// every cursor) and alarms set, in every object of this isolate. Only a test installs it, by wrapping
// the platform's storage methods; stop() puts them back.
import { runInDurableObject } from "cloudflare:test";

export interface StorageMeter {
  rowsWritten(): number;
  alarmsSet(): number;
  stop(): Promise<void>;
}

type Exec = SqlStorage["exec"];
type SetAlarm = DurableObjectStorage["setAlarm"];

/** Installs the meter through `stub`'s object (any object: the methods are shared by all). */
export async function meterStorage(stub: DurableObjectStub): Promise<StorageMeter> {
  const cursors: SqlStorageCursor<Record<string, SqlStorageValue>>[] = [];
  let alarms = 0;
  let restore: () => void = () => {};
  await runInDurableObject(stub, (_, state) => {
    const sql = Object.getPrototypeOf(state.storage.sql) as { exec: Exec };
    const storage = Object.getPrototypeOf(state.storage) as { setAlarm: SetAlarm };
    const exec = sql.exec;
    const setAlarm = storage.setAlarm;
    sql.exec = function (this: SqlStorage, ...args: Parameters<Exec>) {
      const cursor = exec.apply(this, args);
      cursors.push(cursor);
      return cursor;
    } as Exec;
    storage.setAlarm = function (this: DurableObjectStorage, ...args: Parameters<SetAlarm>) {
      alarms++;
      return setAlarm.apply(this, args);
    };
    restore = () => {
      sql.exec = exec;
      storage.setAlarm = setAlarm;
    };
  });
  return {
    rowsWritten: () => cursors.reduce((sum, cursor) => sum + cursor.rowsWritten, 0),
    alarmsSet: () => alarms,
    stop: async () => restore(),
  };
}
