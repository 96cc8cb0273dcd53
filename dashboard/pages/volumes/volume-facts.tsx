// Small views of a volume shared by its row and its page: where it is attached, and when it will be
// deleted for an unpaid balance.
import type { Volume } from "../../api/volumes.ts";
import { formatTime } from "../../format/time.ts";
import { Link } from "../../router/router.tsx";

/** The instances it is mounted in, each a link with its path and mode; "none" when it is free. */
export function Attachments({ volume }: { volume: Volume }) {
  if (volume.attachments.length === 0) return <span className="muted">none</span>;
  return (
    <ul className="plain">
      {volume.attachments.map((attachment) => (
        <li key={attachment.instance_id}>
          <Link to={`/instances/${attachment.instance_id}`}>
            <code>{attachment.instance_id}</code>
          </Link>{" "}
          at <code>{attachment.path}</code>
          {attachment.read_only ? " (read-only)" : ""}
        </li>
      ))}
    </ul>
  );
}

/** The scheduled deletion, said as a warning with what stops it; nothing when none is scheduled. */
export function DeletionNotice({ volume }: { volume: Volume }) {
  if (volume.delete_at === null) return null;
  return (
    <p className="warning" data-testid="volume-deletion">
      To be deleted on {formatTime(volume.delete_at)}: the balance is used up. <Link to="/billing">Add funds</Link> to keep it.
    </p>
  );
}
