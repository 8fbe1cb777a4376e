import PushMockCore

/// A user's token (`authorized_user` credentials) bills no project of its own: Google wants the
/// quota project named (`x-goog-user-project`), and one the caller may use.
extension FCMEndpoint {
    /// Google's answer to a user token with no quota project.
    static let quotaProjectRequired =
        "Your application is authenticating by using local Application Default Credentials. The fcm.googleapis.com API requires a quota project, which is not set by default. To learn how to set your quota project, see https://cloud.google.com/docs/authentication/adc-troubleshooting/user-creds ."

    /// Google's answer to a quota project the caller may not use. PushMock cannot know which
    /// project ids exist at Google: one shaped like a project id (6 to 30 lowercase letters, digits
    /// and hyphens, a letter first, no hyphen last; a `domain:` prefix allowed) is taken for someone
    /// else's project, 403 as Google answers it; any other cannot exist, 400.
    static func quotaProjectRefused(_ project: String) -> GoogleError {
        guard project.wholeMatch(of: /([a-z0-9.-]+:)?[a-z][a-z0-9-]{4,28}[a-z0-9]/) != nil else {
            return GoogleError(code: 400, message: "User project specified in the request is invalid.", status: "INVALID_ARGUMENT")
        }
        let console = "https://console.developers.google.com/iam-admin/iam/project?project=\(project)"
        return GoogleError(
            code: 403,
            message:
                "Caller does not have required permission to use project \(project). Grant the caller the roles/serviceusage.serviceUsageConsumer role, or a custom role with the serviceusage.services.use permission, by visiting \(console) and then retry. Propagation of the new permission may take a few minutes.",
            status: "PERMISSION_DENIED",
            details: [
                .help(description: "Google developer console IAM admin", url: console),
                .errorInfo(reason: "USER_PROJECT_DENIED", metadata: [("consumer", "projects/\(project)"), ("service", "fcm.googleapis.com")]),
            ]
        )
    }
}
