// The question before a volume is deleted: what goes with it, its snapshots included.
import type { Volume } from "../../api/volumes.ts";
import { ConfirmDialog } from "../../components/confirm-dialog.tsx";

interface DeleteVolumeDialogProps {
  /** The volume asked about; null while the dialog is closed. */
  volume: Volume | null;
  onConfirm: (volume: Volume) => void;
  onCancel: () => void;
}

export function DeleteVolumeDialog({ volume, onConfirm, onCancel }: DeleteVolumeDialogProps) {
  return (
    <ConfirmDialog
      open={volume !== null}
      title={`Delete ${volume?.name ?? "this volume"}?`}
      confirmLabel="Delete"
      onCancel={onCancel}
      onConfirm={() => volume && onConfirm(volume)}
    >
      <p>Its data and its snapshots are deleted from storage, and its storage charges end. This cannot be undone.</p>
    </ConfirmDialog>
  );
}
