import AuthCore

/// The contact step of an email or SMS sign-in, or of Portal's email link: where the code or the link should go.
public struct ContactForm: Equatable, Sendable {
    public var choice: SignInChoice
    public var field: TextField
    /// `invalidContact`'s message after an Enter with a bad address or number.
    public var error: String?

    public init(choice: SignInChoice) {
        self.choice = choice
        let placeholder = choice.provider.contactIsPhone ? "+44 20 7946 0000" : "you@example.com"
        field = TextField(isFocused: true, placeholder: placeholder, maxLength: 254)
        error = nil
    }

    /// The typed contact, validated the way the backend will be asked: email for `email` and `email-link`, E.164
    /// for `sms`.
    public func validatedContact() -> Result<Contact, SignInError> {
        Result { () throws(SignInError) in
            choice.provider.contactIsPhone
                ? try Contact.validatedPhone(field.text)
                : try Contact.validatedEmail(field.text)
        }
    }
}
