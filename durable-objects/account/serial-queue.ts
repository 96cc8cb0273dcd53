// Runs tasks one at a time. A Durable Object's input gate opens while it awaits another object, so
// the launch/start/stop/destroy paths of one account take this queue to stay serialized.
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task, task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
