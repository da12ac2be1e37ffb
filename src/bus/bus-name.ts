/** Bus names and the default bus. */

import { z } from "zod";
import { DEFAULTS } from "../config/defaults.js";

/** The bus used when none is named. */
export const DEFAULT_BUS = DEFAULTS.bus;

/** 1–200 characters of `[A-Za-z0-9._:-]`. */
export const busNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,200}$/, "a bus name is 1-200 characters of A-Z a-z 0-9 . _ : -")
  .describe("Bus name: 1-200 characters of [A-Za-z0-9._:-]");
