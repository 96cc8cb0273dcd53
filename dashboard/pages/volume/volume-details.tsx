// What a volume is now: its id, size, content, stored bytes and price, version and when saved, and
// where it is attached.
import type { Volume } from "../../api/volumes.ts";
import { formatBytes } from "../../format/bytes.ts";
import { formatDollars } from "../../format/money.ts";
import { formatTime } from "../../format/time.ts";
import { Attachments } from "../volumes/volume-facts.tsx";

export function VolumeDetails({ volume }: { volume: Volume }) {
  return (
    <dl className="details">
      <dt>Volume</dt>
      <dd>
        <code>{volume.id}</code>
      </dd>
      <dt>Size</dt>
      <dd>{volume.size_gb} GB</dd>
      <dt>Used</dt>
      <dd>{formatBytes(volume.used_bytes)} in its latest version</dd>
      <dt>Stored</dt>
      <dd>{formatBytes(volume.stored_bytes)}, its latest version and its snapshots, each byte once</dd>
      <dt>Price</dt>
      <dd title={`${volume.price_month_micros} micro-dollars`}>{formatDollars(volume.price_month_micros)} a month at what it stores now</dd>
      <dt>Version</dt>
      <dd data-testid="volume-version">{volume.version === 0 ? "0 (empty, never saved)" : volume.version}</dd>
      <dt>Saved</dt>
      <dd>{volume.saved_at ? formatTime(volume.saved_at) : "never"}</dd>
      <dt>Attached to</dt>
      <dd>
        <Attachments volume={volume} />
      </dd>
      <dt>Created</dt>
      <dd>{formatTime(volume.created_at)}</dd>
    </dl>
  );
}
