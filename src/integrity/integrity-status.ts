// The integrity scans as their users see them (the database operations, the controller's shutdown): what AppDeps
// holds, declared apart from the scan itself, which reaches every entity definition.
export interface IntegrityResult {
  description: string;
  fixed: boolean;
}

/** `dataIntegrityCheckDetails`: before any run the times, error and results are null, as upstream sends them. */
export interface IntegrityStatus {
  inProgress: boolean;
  fixingErrors: boolean;
  tooManyErrors: boolean;
  startTime: string | null;
  endTime: string | null;
  error: string | null;
  results: IntegrityResult[] | null;
}

/** One scan at a time (check or fix) in the background, with the last run's results (integrity-checks.ts). */
export interface IntegrityScans {
  readonly status: IntegrityStatus;
  /** Starts a scan in the background; false when one (of either kind) is already running. */
  start(fix: boolean): boolean;
  /** Waits for the scan in progress, if any, to finish. */
  settled(): Promise<void>;
  /** Cancels a scan in progress (shutdown) and waits for it to stop. */
  stop(): Promise<void>;
}
