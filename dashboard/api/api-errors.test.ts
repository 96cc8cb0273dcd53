import { describe, expect, it } from "vitest";
import { GpuApiError } from "../../client/index.ts";
import { fieldError, fieldOf, formError } from "./api-errors.ts";

const invalid = (message: string) => new GpuApiError(400, "invalid", message);

describe("where an API error is shown", () => {
  it.each([
    ["gpu_count: must be an integer from 1 to 8", "gpu_count"],
    ["model: qwen needs 160 GB of VRAM; 1 x rtx4090 has 24 GB", "model"],
    ["env.INSTANCE_TOKEN: is set by the platform and cannot be overridden", "env"],
    ["current_password: is not the account's password", "current_password"],
    ["balance_micros 5 does not cover one hour of this instance", null],
    ["email or password is wrong", null],
    ["no machine has 2 free h100-80gb GPU(s) right now", null],
  ])("%s names the field %s", (message, field) => {
    expect(fieldOf(message)).toBe(field);
  });

  it("puts a field's message beside that field and nowhere else", () => {
    const error = invalid("image: must be a container image reference such as docker.io/library/nginx:1.27");
    expect(fieldError(error, "image")).toBe(error.message);
    expect(fieldError(error, "label")).toBeNull();
    expect(formError(error, ["image", "label"])).toBeNull();
  });

  it("shows a message that names no field of the form for the whole form", () => {
    const funds = new GpuApiError(402, "insufficient_funds", "balance_micros 5 does not cover one hour of this instance (price_hour_micros 690000)");
    expect(formError(funds, ["gpu_model", "model"])).toBe(funds.message);
    expect(formError(invalid("env.X: bad"), ["label"])).toBe("env.X: bad");
    expect(formError(new TypeError("Failed to fetch"), [])).toBe("the service could not be reached (Failed to fetch); try again");
    expect(formError(null, [])).toBeNull();
  });
});
