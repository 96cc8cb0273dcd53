// The account's volumes, one row each: name (a link to its page, with a scheduled deletion's date),
// size, content, stored bytes, version and when saved, where attached, price a month, and "Delete"
// (asked in a dialog; refused with the API's words while an instance has it attached).
import { useState } from "react";
import { formError } from "../../api/api-errors.ts";
import { useMay } from "../../api/may.ts";
import { useDeleteVolume, useVolumes, type Volume } from "../../api/volumes.ts";
import { DataTable } from "../../components/data-table.tsx";
import { FormError } from "../../components/form-error.tsx";
import { QueryList } from "../../components/query-state.tsx";
import { formatBytes } from "../../format/bytes.ts";
import { formatDollars } from "../../format/money.ts";
import { formatTime } from "../../format/time.ts";
import { Link } from "../../router/router.tsx";
import { DeleteVolumeDialog } from "./delete-volume-dialog.tsx";
import { Attachments, DeletionNotice } from "./volume-facts.tsx";

export function VolumeTable() {
  const volumes = useVolumes();
  const remove = useDeleteVolume();
  const mayDelete = useMay("DELETE /volumes/{id}");
  const [deleting, setDeleting] = useState<Volume | null>(null);
  return (
    <QueryList query={volumes} what="volumes" empty="No volumes yet.">
      {(list) => (
        <>
          <DataTable
            columns={["Name", "Size", "Used", "Stored", "Version", "Saved", "Attached to", { text: "Per month", className: "amount" }, { text: "Delete", visuallyHidden: true }]}
            rows={list}
            rowKey={(volume) => volume.id}
            rowTestId="volume-row"
          >
            {(volume) => (
              <>
                <td>
                  <Link to={`/volumes/${volume.id}`}>{volume.name}</Link>
                  <DeletionNotice volume={volume} />
                </td>
                <td>{volume.size_gb} GB</td>
                <td>{formatBytes(volume.used_bytes)}</td>
                <td>{formatBytes(volume.stored_bytes)}</td>
                <td>{volume.version}</td>
                <td>{volume.saved_at ? formatTime(volume.saved_at) : "never"}</td>
                <td>
                  <Attachments volume={volume} />
                </td>
                {/* A small volume costs under a cent a month: the exact amount is one hover away. */}
                <td className="amount" title={`${volume.price_month_micros} micro-dollars`}>
                  {formatDollars(volume.price_month_micros)}
                </td>
                <td>
                  {mayDelete && (
                    <button type="button" className="danger" onClick={() => setDeleting(volume)} disabled={remove.isPending}>
                      Delete
                    </button>
                  )}
                </td>
              </>
            )}
          </DataTable>
          <FormError message={formError(remove.error, [])} />
          <DeleteVolumeDialog
            volume={deleting}
            onCancel={() => setDeleting(null)}
            onConfirm={(volume) => {
              setDeleting(null);
              remove.mutate(volume.id);
            }}
          />
        </>
      )}
    </QueryList>
  );
}
