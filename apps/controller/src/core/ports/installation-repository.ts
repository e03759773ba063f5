export interface InstallationRecord {
  id: string;
  name: string;
  createdAt: string;
}

export interface InstallationRepository {
  get(): Promise<InstallationRecord | null>;
  /** Inserts the singleton; false when it already exists. */
  create(record: { id: string; name: string }): Promise<boolean>;
}
