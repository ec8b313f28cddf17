/** Every command id, view id, context key and setting name of the extension, in one place. */
export const commandIds = {
  pause: 'trainyard.pause',
  unpause: 'trainyard.unpause',
  refresh: 'trainyard.refresh',
  selectRepository: 'trainyard.selectRepository',
  filterEventLog: 'trainyard.filterEventLog',
  clearEventLogFilter: 'trainyard.clearEventLogFilter',
  openPullRequest: 'trainyard.openPullRequest',
  copyEventAsJson: 'trainyard.copyEventAsJson',
  showEventAsJson: 'trainyard.showEventAsJson',
  setApiKey: 'trainyard.setApiKey',
  clearApiKey: 'trainyard.clearApiKey',
  signInWithGitHub: 'trainyard.signInWithGitHub',
  loadMoreEvents: 'trainyard.loadMoreEvents',
  showView: 'trainyard.showView',
  dequeuePullRequest: 'trainyard.dequeuePullRequest',
  showStatistics: 'trainyard.showStatistics',
  whyWaiting: 'trainyard.whyWaiting',
  requeuePullRequest: 'trainyard.requeuePullRequest',
} as const;

export const viewIds = {
  container: 'trainyard',
  mergeQueue: 'trainyard.mergeQueue',
  eventLog: 'trainyard.eventLog',
  freezes: 'trainyard.freezes',
} as const;

/** `workbench.view.extension.<container id>` opens the activity-bar container. */
export const openContainerCommand = `workbench.view.extension.${viewIds.container}`;

export const contextKeys = {
  /** loading | noRepository | signedOut | forbidden | unreachable | unknownRepository | error | ok */
  state: 'trainyard.state',
  paused: 'trainyard.paused',
  eventLogFiltered: 'trainyard.eventLogFiltered',
} as const;

export const settings = {
  section: 'trainyard',
  apiUrl: 'apiUrl',
  repository: 'repository',
  refreshInterval: 'refreshInterval',
  statusBarRefreshInterval: 'statusBar.refreshInterval',
  githubLogin: 'githubLogin',
  eventLogPageSize: 'eventLog.pageSize',
} as const;

/** SecretStorage key of the application key: never a setting. */
export const apiKeySecret = 'trainyard.apiKey';
