// The launch form: GPU, count, template, model (only those that fit), the custom image, label, disk,
// volumes, environment and idle stop, with what the choice costs. On success the browser goes to the new instance.
import { useState, type FormEvent } from "react";
import { fieldError } from "../../api/api-errors.ts";
import type { Gpu, Model, Template } from "../../api/catalog.ts";
import { useLaunch } from "../../api/instances.ts";
import { Field } from "../../components/field.tsx";
import { PlainFormError } from "../../components/plain-form-error.tsx";
import { navigate } from "../../router/router.tsx";
import { countChoices, effectiveModel, fittingModels, launchRequest, parseEnv, type LaunchChoices } from "./launch-choices.ts";
import { LaunchSummary } from "./launch-summary.tsx";
import { VolumesField } from "./volumes-field.tsx";

/** What comes with the GPUs; the instance's page shows the figures once it is placed. */
const SHARE_HINT = "Memory and CPUs come with the GPUs: their share of the host's, shown on the instance once it is placed";

const FIELDS = ["gpu_model", "gpu_count", "template", "model", "image", "label", "disk_gb", "env", "idle_stop_minutes", "volumes"];

interface LaunchFormProps {
  gpus: Gpu[];
  templates: Template[];
  models: Model[];
  balanceMicros: number;
}

export function LaunchForm({ gpus, templates, models, balanceMicros }: LaunchFormProps) {
  const [choices, setChoices] = useState<LaunchChoices>(() => ({
    gpu: (gpus.find((g) => g.free_gpus > 0) ?? gpus[0])?.model ?? "",
    count: 1,
    template: templates[0]?.id ?? "",
    model: "",
    image: "",
    label: "",
    diskGb: "",
    env: "",
    idleStop: "",
    volumes: [],
  }));
  const [envError, setEnvError] = useState<string | null>(null);
  const launch = useLaunch();

  const gpu = gpus.find((g) => g.model === choices.gpu);
  const template = templates.find((t) => t.id === choices.template);
  const counts = countChoices(gpu, template);
  const count = Math.min(choices.count, counts.length);
  const fitting = fittingModels(models, template, gpu, count);
  const model = effectiveModel(choices.model, fitting, template);
  const takesModel = (template?.model_kinds.length ?? 0) > 0;
  const takesImage = template?.id === "custom";

  const set = (change: Partial<LaunchChoices>) => setChoices((current) => ({ ...current, ...change }));
  const error = launch.error;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const env = parseEnv(choices.env);
    setEnvError(env.ok ? null : env.message);
    if (!env.ok) return;
    launch.mutate(launchRequest({ ...choices, count }, model, takesImage, env.env), {
      onSuccess: (instance) => navigate(`/instances/${instance.id}`),
    });
  };

  return (
    <form onSubmit={submit} noValidate className="launch">
      <Field label="GPU" error={fieldError(error, "gpu_model")}>
        {(control) => (
          <select {...control} value={choices.gpu} onChange={(e) => set({ gpu: e.target.value })}>
            {gpus.map((g) => (
              <option key={g.model} value={g.model}>
                {g.display_name} · {g.vram_gb} GB · {g.free_gpus} free
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="GPU count" error={fieldError(error, "gpu_count")} hint={template?.multi_gpu === false ? `${template.name} runs on one GPU` : SHARE_HINT}>
        {(control) => (
          <select {...control} value={count} onChange={(e) => set({ count: Number(e.target.value) })}>
            {counts.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Template" error={fieldError(error, "template")} hint={template?.description}>
        {(control) => (
          <select {...control} value={choices.template} onChange={(e) => set({ template: e.target.value })}>
            {templates.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        )}
      </Field>
      {takesModel && (
        <Field
          label="Model"
          error={fieldError(error, "model")}
          hint={fitting.length === 0 ? `No model for this template fits in ${count} × ${gpu?.vram_gb ?? 0} GB; choose more or larger GPUs.` : "Models that fit the chosen GPUs' memory"}
        >
          {(control) => (
            <select {...control} value={model} onChange={(e) => set({ model: e.target.value })}>
              {!template?.model_required && <option value="">None</option>}
              {fitting.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.name} ({m.params}, needs {m.min_vram_gb} GB)
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
      {takesImage && (
        <Field label="Image" error={fieldError(error, "image")} hint="A public container image, e.g. docker.io/library/nginx:1.27">
          {(control) => <input {...control} type="text" value={choices.image} onChange={(e) => set({ image: e.target.value })} />}
        </Field>
      )}
      <Field label="Label" error={fieldError(error, "label")} hint="Optional: a name of your own for it">
        {(control) => <input {...control} type="text" value={choices.label} onChange={(e) => set({ label: e.target.value })} />}
      </Field>
      <Field label="Disk (GB)" error={fieldError(error, "disk_gb")} hint={`Optional: ${template?.disk_gb ?? ""} GB if left empty`}>
        {(control) => (
          <input {...control} type="number" inputMode="numeric" min={10} max={2000} value={choices.diskGb} onChange={(e) => set({ diskGb: e.target.value })} />
        )}
      </Field>
      <VolumesField chosen={choices.volumes} onChange={(volumes) => set({ volumes })} error={fieldError(error, "volumes")} />
      <Field label="Environment variables" error={envError ?? fieldError(error, "env")} hint="Optional: one NAME=value a line">
        {(control) => <textarea {...control} rows={3} value={choices.env} onChange={(e) => set({ env: e.target.value })} />}
      </Field>
      <Field
        label="Stop when idle (minutes)"
        error={fieldError(error, "idle_stop_minutes")}
        hint="Optional: stopped (data kept, billing ends) once its GPUs stayed under 5 % with no traffic this long, 5 to 1440; never if left empty"
      >
        {(control) => (
          <input {...control} type="number" inputMode="numeric" min={5} max={1440} value={choices.idleStop} onChange={(e) => set({ idleStop: e.target.value })} />
        )}
      </Field>
      <LaunchSummary gpu={gpu} count={count} balanceMicros={balanceMicros} />
      <PlainFormError error={error} fields={FIELDS} money={{ balanceMicros, priceHourMicros: gpu ? gpu.price_hour_micros * count : undefined }} />
      <button type="submit" className="primary" disabled={launch.isPending}>
        Launch
      </button>
    </form>
  );
}
