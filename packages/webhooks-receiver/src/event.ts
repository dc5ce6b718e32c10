/** The delivery envelope (spec 6.1). `sequence` orders updates of one object (a charge, a wallet…). */
export interface WebhookEvent<T = unknown> {
  event_id: string;
  event_type: string;
  occurred_at: string;
  is_live: boolean;
  /** Absent in payloads older than version 2026-03-27. */
  api_version?: string;
  /** Absent in payloads older than version 2026-03-27. */
  business_id?: string;
  /** Grows with every update of the object the event is about; drop an event older than one applied. */
  sequence?: number;
  data: T;
}
