import AuthCore
import Foundation

/// How a flow takes its controller's reports: the phase follows the machine, the trace records each step.
extension SignInFlow {
    public mutating func apply(_ progress: SignInProgress, now: Date) {
        switch progress {
        case .began(let attempt, let prompt, let receivers):
            self.prompt = prompt
            self.receivers = receivers
            if case .starting = phase { phase = .running(.awaitingCallback(attempt, .waiting)) }
            if case .oneTimeCode(_, let format, _) = attempt.method { sizeCodeField(for: format) }
            let what: String
            switch prompt {
            case .browser(let url): what = "browser: \(Self.shortened(url))"
            case .device(let authorization):
                what = "device code \(authorization.userCode) at \(authorization.verificationURI)"
            case .codeSent: what = "code sent"
            case .backchannel(let authorization): what = "backchannel request for \(authorization.loginHint)"
            case .tokenRequest(let grant): what = "token request (\(grant))"
            case .linkSent(let contact): what = "sign-in link sent to \(contact)"
            }
            record(now, .state, "began \(attempt.id): \(what)")
            if !receivers.isEmpty { record(now, .state, "listening: " + receivers.joined(separator: ", ")) }
        case .stateChanged(let state):
            guard isActive else { return }  // the end is reported by `finished`; late changes add nothing
            switch state {
            case .idle, .authenticated:
                return  // the `finished` report that follows carries the outcome
            case .awaitingCallback(let attempt, _):
                if case .oneTimeCode(_, let format, _) = attempt.method, codeField.length != format.length {
                    sizeCodeField(for: format)
                }
                // A different code id for the same attempt: the resend worked and a new code is out.
                if case .oneTimeCode(_, _, let newID?) = attempt.method,
                    case .oneTimeCode(_, _, let oldID?)? = self.attempt?.method, newID != oldID
                {
                    codeResentAt = now
                    codeAttemptsLeft = nil  // a new code has its own tries
                }
            case .totpRequired:
                if case .running(.totpRequired) = phase {
                } else {
                    codeField = DigitField(length: OTPCodeFormat.totp.length, isFocused: true)
                    codeFocus = .code
                }
            }
            let before = Self.describe(phase)
            phase = .running(state)
            let after = Self.describe(phase)
            if after != before { record(now, .state, after) }
        case .redirectUnreachable(let reason):
            redirectWarning = reason
            record(now, .notice, "redirect unreachable: " + reason, isError: true)
        case .note(let text):
            notes.append(text)
            record(now, .notice, text)
        case .notice(let error):
            notice = error.message
            if error == .invalidCode || error.refusesCode {
                codeField = codeField.cleared()
                if choice.usesCode, let left = Self.attemptsLeft(in: trace.last { $0.kind == .step("response") }) {
                    codeAttemptsLeft = left
                }
            }
            record(now, .notice, error.message, isError: true)
        case .callbackArrived(let source, let refusal):
            if let refusal {
                lastCallback = "\(source): refused — \(refusal)"
                record(now, .callback, lastCallback!, isError: true)
            } else {
                lastCallback = "\(source): accepted"
                notice = nil
                record(now, .callback, lastCallback!)
            }
        case .finished(let finished):
            // Worded for the TUI: a flag the message names becomes the field that does the same.
            let result = finished.mapError(\.onScreen)
            phase = .finished(result)
            switch result {
            case .success(let outcome):
                record(now, .result, "stored session \(outcome.record.key) (\(outcome.kind.rawValue))")
            case .failure(let error):
                record(now, .result, error.message, isError: error != .closed)
            }
        case .replayed(let outcome):
            record(now, .callback, "replayed callback: \(outcome.record.key) reported again, nothing exchanged")
        }
    }

    /// What the event loop adds beside the controller's reports.
    public mutating func apply(_ detail: SignInDetail, now: Date) {
        switch detail {
        case .promptCode(let modules):
            promptQR = modules
        case .protocolStep(let kind, let summary, let elapsed, let details):
            let labels = TraceLine.protocolLabels(kind: kind, details: details)
            record(
                startedAt.addingTimeInterval(elapsed / 1000), .step(kind),
                ([summary] + labels).joined(separator: " · "), isError: kind == "notice",
                details: TraceLine.detailLines(details))
        case .enrolmentCode(let modules):
            enrolmentQR = modules
        case .testAccountCodeOffered:
            offersTestAccountCode = true
        case .protections(let names):
            protections = names
        case .traceExported(let note):
            traceExportNote = note
        }
    }

    /// The tries left that a backend's refusal names ("invalid code (4 attempts left)", "1 attempt remaining"), read
    /// from the redacted response step that carried it; nil when it names none.
    static func attemptsLeft(in response: TraceLine?) -> Int? {
        guard let response else { return nil }
        let text = ([response.text] + response.details).joined(separator: "\n")
        guard let match = text.firstMatch(of: /(\d{1,4}) (?:more )?(?:attempts?|tries|try) (?:left|remaining)/) else {
            return nil
        }
        return Int(match.1)
    }

    /// A short name for where the flow stands, for the trace and the screens: the machine state's one name
    /// (`SignInStateMachine.State.traceName`) in words, with the TOTP attempts left ("totpRequired (storage failed,
    /// 3 attempts left)"); an ended flow is named by the state it ended in.
    public static func describe(_ phase: Phase) -> String {
        switch phase {
        case .starting: return "starting"
        case .finished(.success(let outcome)): return describe(.authenticated(outcome))
        case .finished(.failure(let error)): return describe(.idle(lastError: error))
        case .running(let state): return describe(state)
        }
    }

    static func describe(_ state: SignInStateMachine.State) -> String {
        guard let progress = state.progress else { return state.stageName }
        var words = [spoken(progress.traceName)]
        if case .totpRequired(_, let challenge, _) = state { words.append("\(challenge.attemptsLeft) attempts left") }
        return "\(state.stageName) (\(words.joined(separator: ", ")))"
    }

    /// A camel-case name as lower-case words: `storageFailed` is "storage failed".
    static func spoken(_ name: String) -> String {
        name.reduce(into: "") { words, character in
            words += character.isUppercase ? " " + character.lowercased() : String(character)
        }
    }

    /// URLs in the trace are cut: the full one is on the waiting screen, and the trace should stay one line each.
    static func shortened(_ url: String) -> String {
        DisplayText.truncated(url, toWidth: 60)
    }

    private mutating func sizeCodeField(for format: OTPCodeFormat) {
        codeField = DigitField(
            length: format.length, alphabet: format.alphanumeric ? .alphanumeric : .digits,
            isFocused: true)
        codeFocus = .code
    }

    private mutating func record(
        _ time: Date, _ kind: TraceLine.Kind, _ text: String, isError: Bool = false,
        details: [String] = []
    ) {
        // A flow that is left running for hours with a noisy receiver must not grow without bound.
        if trace.count >= 500 { trace.removeFirst(trace.count - 499) }
        trace.append(TraceLine(time: time, kind: kind, text: text, isError: isError, details: details))
    }
}

extension DigitField {
    /// The same field with every box empty (after a refused code).
    func cleared() -> DigitField {
        DigitField(length: length, alphabet: alphabet, isMasked: isMasked, isFocused: isFocused, style: style)
    }
}
