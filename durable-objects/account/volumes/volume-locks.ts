// One volume's reads and deletions of its objects, one at a time: a commit checks its chunks are
// stored and records the version while no garbage collection of the same volume is deleting, so a
// chunk a commit found cannot be deleted under it by a collection that began before.
export class VolumeLocks {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(volumeId: string, work: () => Promise<T>): Promise<T> {
    const before = this.tails.get(volumeId) ?? Promise.resolve();
    const mine = before.then(work);
    const tail = mine.catch(() => undefined);
    this.tails.set(volumeId, tail);
    try {
      return await mine;
    } finally {
      if (this.tails.get(volumeId) === tail) this.tails.delete(volumeId);
    }
  }
}
