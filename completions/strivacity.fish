function __strivacity_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __strivacity_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __strivacity_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __strivacity_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __strivacity_parse_tokens -S
    set -l unparsed_tokens (__strivacity_tokens -pc)
    switch $unparsed_tokens[1]
    case 'strivacity'
        __strivacity_parse_subcommand 0 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'login'
            __strivacity_parse_subcommand 0 'profile=' 'store=' 'config=' 'v/verbose' 'tenant=' 'client-id=' 'scope=' 'redirect-uri=' 'sdk-mode=' 'login-hint=' 'prompt=' 'acr-values=' 'max-age=' 'add-scope=+' 'resource=+' 'audience=' 'ui-locales=' 'field=+' 'field-env=+' 'action=+' 'browser' 'no-browser' 'timeout=' 'client-secret-stdin' 'version' 'h/help'
        case 'token'
            __strivacity_parse_subcommand 0 'profile=' 'store=' 'config=' 'v/verbose' 'min-ttl=' 'refresh' 'format=' 'id-token' 'login' 'api=' 'for=' 'audience=' 'resource=+' 'scope=+' 'version' 'h/help'
        case 'status'
            __strivacity_parse_subcommand 0 'profile=' 'store=' 'config=' 'v/verbose' 'all' 'json' 'jwk' 'jwks' 'version' 'h/help'
        case 'doctor'
            __strivacity_parse_subcommand 0 'profile=' 'store=' 'config=' 'v/verbose' 'format=' 'version' 'h/help'
        case 'userinfo'
            __strivacity_parse_subcommand 0 'profile=' 'store=' 'config=' 'v/verbose' 'version' 'h/help'
        case 'logout'
            __strivacity_parse_subcommand 0 'profile=' 'store=' 'config=' 'v/verbose' 'all' 'local' 'version' 'h/help'
        case 'revoke'
            __strivacity_parse_subcommand 0 'profile=' 'store=' 'config=' 'v/verbose' 'version' 'h/help'
        case 'curl'
            __strivacity_parse_subcommand -r 1 'profile=' 'store=' 'config=' 'v/verbose' 'version' 'h/help'
        case 'exec'
            __strivacity_parse_subcommand -r 1 'profile=' 'store=' 'config=' 'v/verbose' 'api=' 'env=' 'file-env=' 'dir=' 'fail-on-expiry' 'version' 'h/help'
        case 'agent'
            __strivacity_parse_subcommand 1 'idle-timeout=' 'v/verbose' 'version' 'h/help'
        case 'use'
            __strivacity_parse_subcommand 1 'here' 'config=' 'version' 'h/help'
        case 'setup'
            __strivacity_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'git'
                __strivacity_parse_subcommand 0 'profile=' 'store=' 'config=' 'v/verbose' 'host=' 'global' 'local' 'undo' 'dry-run' 'version' 'h/help'
            case 'docker'
                __strivacity_parse_subcommand 0 'profile=' 'store=' 'config=' 'v/verbose' 'registry=' 'api=' 'audience=' 'scope=+' 'undo' 'dry-run' 'version' 'h/help'
            case 'cargo'
                __strivacity_parse_subcommand 0 'profile=' 'store=' 'config=' 'v/verbose' 'registry=' 'add-host' 'api=' 'audience=' 'scope=+' 'undo' 'dry-run' 'version' 'h/help'
            case 'terraform'
                __strivacity_parse_subcommand 1 'profile=' 'store=' 'config=' 'v/verbose' 'api=' 'audience=' 'scope=+' 'undo' 'dry-run' 'version' 'h/help'
            case 'kubectl'
                __strivacity_parse_subcommand 0 'profile=' 'store=' 'config=' 'v/verbose' 'user=' 'kubeconfig=' 'context=' 'undo' 'dry-run' 'api=' 'version' 'h/help'
            case 'gcloud'
                __strivacity_parse_subcommand 0 'profile=' 'store=' 'config=' 'v/verbose' 'audience=' 'api=' 'output=' 'token-url=' 'service-account-impersonation-url=' 'force' 'undo' 'dry-run' 'version' 'h/help'
            case 'aws'
                __strivacity_parse_subcommand 0 'profile=' 'store=' 'config=' 'v/verbose' 'api=' 'audience=' 'scope=+' 'role-arn=' 'session-name=' 'aws-profile=' 'undo' 'dry-run' 'version' 'h/help'
            case 'api'
                __strivacity_parse_subcommand 1 'profile=' 'store=' 'config=' 'v/verbose' 'name=' 'scope=+' 'undo' 'dry-run' 'version' 'h/help'
            case 'proxy'
                __strivacity_parse_subcommand 0 'profile=' 'store=' 'config=' 'v/verbose' 'proxy=' 'user=' 'auth=' 'password-stdin' 'undo' 'dry-run' 'version' 'h/help'
            end
        case 'credential'
            __strivacity_parse_subcommand 1 'profile=' 'store=' 'config=' 'v/verbose' 'version' 'h/help'
        case 'docker-credential'
            __strivacity_parse_subcommand -r 1 'version' 'h/help'
        case 'cargo-credential'
            __strivacity_parse_subcommand 0 'profile=' 'store=' 'config=' 'v/verbose' 'version' 'h/help'
        case 'terraform-credential'
            __strivacity_parse_subcommand -r 1 'version' 'h/help'
        case 'aws-credential-process'
            __strivacity_parse_subcommand 0 'profile=' 'store=' 'config=' 'v/verbose' 'api=' 'version' 'h/help'
        case 'help'
            __strivacity_parse_subcommand -r 1 'version'
        end
    end
end

function __strivacity_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __strivacity_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __strivacity_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __strivacity_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__strivacity_tokens -p)
    if test -z "$(__strivacity_tokens -t)"
        set -l index (count (__strivacity_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'strivacity' -f
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity" version' -l 'version' -d 'Show the version.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity" -eq 1' -fa 'login' -d 'Sign in to a Strivacity tenant in the terminal and keep the tokens.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity" -eq 1' -fa 'token' -d 'Print a fresh access token (refreshing it when needed).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity" -eq 1' -fa 'status' -d 'Show a profile\'s tenant, client, user, token expiry and store (never a secret).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity" -eq 1' -fa 'doctor' -d 'Check the config, the tenant, the keyring, the agent and the set-up, each with its fix.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity" -eq 1' -fa 'userinfo' -d 'Print the userinfo endpoint\'s claims as JSON.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity" -eq 1' -fa 'logout' -d 'Revoke the tokens, end the session at the tenant, and delete them locally.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity" -eq 1' -fa 'revoke' -d 'Revoke the tokens at the tenant and delete them, keeping the profile\'s settings.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity" -eq 1' -fa 'curl' -d 'Run curl with a fresh access token, passed through a pipe, never in argv.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity" -eq 1' -fa 'exec' -d 'Run a command with a fresh token in its environment or in a file kept fresh.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity" -eq 1' -fa 'agent' -d 'Keep tokens in memory for this session: one keyring approval, fast answers.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity" -eq 1' -fa 'use' -d 'Choose the profile used by default, or (--here) in this repository or directory.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity" -eq 1' -fa 'setup' -d 'Make git, docker, cargo, terraform, kubectl, gcloud or aws use strivacity; add an API or a proxy.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity" -eq 1' -fa 'credential' -d 'git credential helper: answer get/store/erase on stdin and stdout (git-credential(1)).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity" -eq 1' -fa 'docker-credential' -d 'Docker credential helper: answer get/store/erase/list on stdin and stdout.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity" -eq 1' -fa 'cargo-credential' -d 'cargo credential provider: answer cargo\'s requests on stdin and stdout (protocol v1).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity" -eq 1' -fa 'terraform-credential' -d 'Terraform/OpenTofu credentials helper: answer get/store/forget HOST.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity" -eq 1' -fa 'aws-credential-process' -d 'AWS credential_process: credentials for an API\'s AWS role.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity login" profile' -l 'profile' -d 'Profile to use.' -rfka '(__strivacity_custom_completion ---completion login -- --profile (count (__strivacity_tokens -pc)) (__strivacity_tokens -tC))'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity login" store' -l 'store' -d 'Where tokens are kept: the Secret Service keyring, or a 0600 file.' -rfka 'secret-service file'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity login" config' -l 'config' -d 'Config file (default: $XDG_CONFIG_HOME/strivacity/config.toml).' -rF
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity login" v verbose' -l 'verbose' -s 'v' -d 'Describe each step on stderr (secrets are redacted).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity login" tenant' -l 'tenant' -d 'Tenant URL (https, or http on a loopback address).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity login" client-id' -l 'client-id' -d 'OAuth client id.' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity login" scope' -l 'scope' -d 'Scopes to request, space-separated (default: openid profile offline_access).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity login" redirect-uri' -l 'redirect-uri' -d 'Loopback redirect URI (default: http://127.0.0.1:<free port>/callback).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity login" sdk-mode' -l 'sdk-mode' -d 'Journey API mode: web, web-minimal, ios, ios-minimal, android, android-minimal (default: web).' -rfka 'web web-minimal ios ios-minimal android android-minimal'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity login" login-hint' -l 'login-hint' -d 'Passed to the tenant as login_hint.' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity login" prompt' -l 'prompt' -d 'Passed to the tenant as prompt (none, login, create).' -rfka 'none login create'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity login" acr-values' -l 'acr-values' -d 'Passed to the tenant as acr_values.' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity login" max-age' -l 'max-age' -d 'Passed to the tenant as max_age: sign in again unless the last sign-in is this recent.' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity login"' -l 'add-scope' -d 'Also ask for this scope at this sign-in, not saved (repeatable).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity login"' -l 'resource' -d 'Also ask for this resource (RFC 8707) at this sign-in, not saved (repeatable).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity login" audience' -l 'audience' -d 'Also ask for this audience at this sign-in, not saved.' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity login" ui-locales' -l 'ui-locales' -d 'Passed to the tenant as ui_locales.' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity login"' -l 'field' -d 'Answer a widget by id without asking (repeatable).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity login"' -l 'field-env' -d 'Answer a widget from an environment variable (repeatable).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity login"' -l 'action' -d 'Take this action (form id) when a screen offers it (repeatable).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity login" browser' -l 'browser' -d 'Do the whole sign-in on the tenant\'s pages in a browser.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity login" no-browser' -l 'no-browser' -d 'Print the browser address instead of opening it.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity login" timeout' -l 'timeout' -d 'Seconds to wait for the browser (default: 300).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity login" client-secret-stdin' -l 'client-secret-stdin' -d 'A machine profile: read its client secret from stdin, check it, and keep it in the keyring.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity login" version' -l 'version' -d 'Show the version.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity login" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity token" profile' -l 'profile' -d 'Profile to use.' -rfka '(__strivacity_custom_completion ---completion token -- --profile (count (__strivacity_tokens -pc)) (__strivacity_tokens -tC))'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity token" store' -l 'store' -d 'Where tokens are kept: the Secret Service keyring, or a 0600 file.' -rfka 'secret-service file'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity token" config' -l 'config' -d 'Config file (default: $XDG_CONFIG_HOME/strivacity/config.toml).' -rF
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity token" v verbose' -l 'verbose' -s 'v' -d 'Describe each step on stderr (secrets are redacted).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity token" min-ttl' -l 'min-ttl' -d 'Refresh when the token expires within this many seconds (default: 60, at most half its lifetime).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity token" refresh' -l 'refresh' -d 'Refresh now, whatever the token\'s expiry (roles changed).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity token" format' -l 'format' -d 'What to print: the token alone, or a header, JSON, shell, curl, Kubernetes or Google form.' -rfka 'raw header json env curl exec-credential google-executable'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity token" id-token' -l 'id-token' -d 'Print the ID token instead of the access token.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity token" login' -l 'login' -d 'Sign in on the terminal when there is no usable token.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity token" api' -l 'api' -d 'A token for this API of the profile ([profiles.P.apis.NAME]).' -rfka '(__strivacity_custom_completion ---completion token -- --api (count (__strivacity_tokens -pc)) (__strivacity_tokens -tC))'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity token" for' -l 'for' -d 'A token for the API this URL is under (else the profile\'s own, for its hosts).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity token" audience' -l 'audience' -d 'A token for an API named here, not in the config: the audience parameter it is asked with.' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity token"' -l 'resource' -d 'A token for an API named here: an RFC 8707 resource it is asked for (repeatable).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity token"' -l 'scope' -d 'With --api, --for, --audience or --resource: a scope the API\'s token must carry too (repeatable).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity token" version' -l 'version' -d 'Show the version.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity token" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity status" profile' -l 'profile' -d 'Profile to use.' -rfka '(__strivacity_custom_completion ---completion status -- --profile (count (__strivacity_tokens -pc)) (__strivacity_tokens -tC))'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity status" store' -l 'store' -d 'Where tokens are kept: the Secret Service keyring, or a 0600 file.' -rfka 'secret-service file'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity status" config' -l 'config' -d 'Config file (default: $XDG_CONFIG_HOME/strivacity/config.toml).' -rF
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity status" v verbose' -l 'verbose' -s 'v' -d 'Describe each step on stderr (secrets are redacted).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity status" all' -l 'all' -d 'Every configured profile.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity status" json' -l 'json' -d 'Print JSON instead of a table.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity status" jwk' -l 'jwk' -d 'Print the public key of a private_key_jwt profile as a JWK, with the kid its assertions carry, to register at the tenant.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity status" jwks' -l 'jwks' -d 'The same as a JWK Set: {"keys": [...]}.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity status" version' -l 'version' -d 'Show the version.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity status" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity doctor" profile' -l 'profile' -d 'Profile to use.' -rfka '(__strivacity_custom_completion ---completion doctor -- --profile (count (__strivacity_tokens -pc)) (__strivacity_tokens -tC))'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity doctor" store' -l 'store' -d 'Where tokens are kept: the Secret Service keyring, or a 0600 file.' -rfka 'secret-service file'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity doctor" config' -l 'config' -d 'Config file (default: $XDG_CONFIG_HOME/strivacity/config.toml).' -rF
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity doctor" v verbose' -l 'verbose' -s 'v' -d 'Describe each step on stderr (secrets are redacted).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity doctor" format' -l 'format' -d 'How to print the report.' -rfka 'text json'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity doctor" version' -l 'version' -d 'Show the version.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity doctor" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity userinfo" profile' -l 'profile' -d 'Profile to use.' -rfka '(__strivacity_custom_completion ---completion userinfo -- --profile (count (__strivacity_tokens -pc)) (__strivacity_tokens -tC))'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity userinfo" store' -l 'store' -d 'Where tokens are kept: the Secret Service keyring, or a 0600 file.' -rfka 'secret-service file'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity userinfo" config' -l 'config' -d 'Config file (default: $XDG_CONFIG_HOME/strivacity/config.toml).' -rF
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity userinfo" v verbose' -l 'verbose' -s 'v' -d 'Describe each step on stderr (secrets are redacted).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity userinfo" version' -l 'version' -d 'Show the version.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity userinfo" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity logout" profile' -l 'profile' -d 'Profile to use.' -rfka '(__strivacity_custom_completion ---completion logout -- --profile (count (__strivacity_tokens -pc)) (__strivacity_tokens -tC))'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity logout" store' -l 'store' -d 'Where tokens are kept: the Secret Service keyring, or a 0600 file.' -rfka 'secret-service file'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity logout" config' -l 'config' -d 'Config file (default: $XDG_CONFIG_HOME/strivacity/config.toml).' -rF
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity logout" v verbose' -l 'verbose' -s 'v' -d 'Describe each step on stderr (secrets are redacted).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity logout" all' -l 'all' -d 'Sign out of every profile.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity logout" local' -l 'local' -d 'Only delete the tokens stored here; contact no server.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity logout" version' -l 'version' -d 'Show the version.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity logout" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity revoke" profile' -l 'profile' -d 'Profile to use.' -rfka '(__strivacity_custom_completion ---completion revoke -- --profile (count (__strivacity_tokens -pc)) (__strivacity_tokens -tC))'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity revoke" store' -l 'store' -d 'Where tokens are kept: the Secret Service keyring, or a 0600 file.' -rfka 'secret-service file'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity revoke" config' -l 'config' -d 'Config file (default: $XDG_CONFIG_HOME/strivacity/config.toml).' -rF
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity revoke" v verbose' -l 'verbose' -s 'v' -d 'Describe each step on stderr (secrets are redacted).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity revoke" version' -l 'version' -d 'Show the version.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity revoke" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity curl" profile' -l 'profile' -d 'Profile to use.' -rfka '(__strivacity_custom_completion ---completion curl -- --profile (count (__strivacity_tokens -pc)) (__strivacity_tokens -tC))'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity curl" store' -l 'store' -d 'Where tokens are kept: the Secret Service keyring, or a 0600 file.' -rfka 'secret-service file'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity curl" config' -l 'config' -d 'Config file (default: $XDG_CONFIG_HOME/strivacity/config.toml).' -rF
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity curl" v verbose' -l 'verbose' -s 'v' -d 'Describe each step on stderr (secrets are redacted).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity curl" version' -l 'version' -d 'Show the version.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity curl" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity exec" profile' -l 'profile' -d 'Profile to use.' -rfka '(__strivacity_custom_completion ---completion exec -- --profile (count (__strivacity_tokens -pc)) (__strivacity_tokens -tC))'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity exec" store' -l 'store' -d 'Where tokens are kept: the Secret Service keyring, or a 0600 file.' -rfka 'secret-service file'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity exec" config' -l 'config' -d 'Config file (default: $XDG_CONFIG_HOME/strivacity/config.toml).' -rF
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity exec" v verbose' -l 'verbose' -s 'v' -d 'Describe each step on stderr (secrets are redacted).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity exec" api' -l 'api' -d 'A token for this API of the profile ([profiles.P.apis.NAME]).' -rfka '(__strivacity_custom_completion ---completion exec -- --api (count (__strivacity_tokens -pc)) (__strivacity_tokens -tC))'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity exec" env' -l 'env' -d 'The variable COMMAND finds the token in (default STRIVACITY_ACCESS_TOKEN).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity exec" file-env' -l 'file-env' -d 'The variable COMMAND finds the kept-fresh token file\'s path in.' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity exec" dir' -l 'dir' -d 'The directory for --file-env\'s file, in place of $XDG_RUNTIME_DIR/strivacity (yours, mode 0700).' -rfa '(__strivacity_complete_directories)'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity exec" fail-on-expiry' -l 'fail-on-expiry' -d 'Stop COMMAND (SIGTERM) when its token expires unrenewed.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity exec" version' -l 'version' -d 'Show the version.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity exec" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity agent" -eq 1' -fka 'start stop status'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity agent" idle-timeout' -l 'idle-timeout' -d 'Exit after this many seconds without a request; 0: never.' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity agent" v verbose' -l 'verbose' -s 'v' -d 'Describe each request on stderr (secrets are redacted).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity agent" version' -l 'version' -d 'Show the version.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity agent" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity use" -eq 1' -fka '(__strivacity_custom_completion ---completion use -- positional@0 (count (__strivacity_tokens -pc)) (__strivacity_tokens -tC))'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity use" here' -l 'here' -d 'Only here: this repository (by its git remote) or this directory.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity use" config' -l 'config' -d 'Config file (default: $XDG_CONFIG_HOME/strivacity/config.toml).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity use" version' -l 'version' -d 'Show the version.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity use" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup" version' -l 'version' -d 'Show the version.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity setup" -eq 1' -fa 'git' -d 'Make git use strivacity for a host\'s credentials (or --undo it).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity setup" -eq 1' -fa 'docker' -d 'Make docker, podman and skopeo get a registry\'s token from strivacity (or --undo it).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity setup" -eq 1' -fa 'cargo' -d 'Make cargo get a registry\'s token from strivacity (or --undo it).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity setup" -eq 1' -fa 'terraform' -d 'Make terraform and tofu get a host\'s token from strivacity (or --undo it).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity setup" -eq 1' -fa 'kubectl' -d 'Make a kubeconfig user that gets its tokens from strivacity (or --undo it).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity setup" -eq 1' -fa 'gcloud' -d 'Write a Google credential configuration whose token comes from strivacity.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity setup" -eq 1' -fa 'aws' -d 'Make the AWS CLI and SDKs get a role\'s credentials from strivacity (or --undo it).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity setup" -eq 1' -fa 'api' -d 'Add an API to a profile from its protected-resource metadata (RFC 9728).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity setup" -eq 1' -fa 'proxy' -d 'Set a profile\'s proxy and keep the proxy\'s password (never shown).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup git" profile' -l 'profile' -d 'Profile to use.' -rfka '(__strivacity_custom_completion ---completion setup git -- --profile (count (__strivacity_tokens -pc)) (__strivacity_tokens -tC))'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup git" store' -l 'store' -d 'Where tokens are kept: the Secret Service keyring, or a 0600 file.' -rfka 'secret-service file'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup git" config' -l 'config' -d 'Config file (default: $XDG_CONFIG_HOME/strivacity/config.toml).' -rF
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup git" v verbose' -l 'verbose' -s 'v' -d 'Describe each step on stderr (secrets are redacted).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup git" host' -l 'host' -d 'The git host (host, host:port, or an https:// URL prefix).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup git" global' -l 'global' -d 'Write the user\'s git config (default).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup git" local' -l 'local' -d 'Write this repository\'s git config.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup git" undo' -l 'undo' -d 'Remove what this setup wrote.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup git" dry-run' -l 'dry-run' -d 'Print what would be written or run; change nothing.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup git" version' -l 'version' -d 'Show the version.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup git" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup docker" profile' -l 'profile' -d 'Profile to use.' -rfka '(__strivacity_custom_completion ---completion setup docker -- --profile (count (__strivacity_tokens -pc)) (__strivacity_tokens -tC))'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup docker" store' -l 'store' -d 'Where tokens are kept: the Secret Service keyring, or a 0600 file.' -rfka 'secret-service file'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup docker" config' -l 'config' -d 'Config file (default: $XDG_CONFIG_HOME/strivacity/config.toml).' -rF
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup docker" v verbose' -l 'verbose' -s 'v' -d 'Describe each step on stderr (secrets are redacted).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup docker" registry' -l 'registry' -d 'The registry (host or host:port, as in image names).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup docker" api' -l 'api' -d 'The profile\'s API whose token it gets (added with url = the host if missing).' -rfka '(__strivacity_custom_completion ---completion setup docker -- --api (count (__strivacity_tokens -pc)) (__strivacity_tokens -tC))'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup docker" audience' -l 'audience' -d 'The audience of the API --api adds.' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup docker"' -l 'scope' -d 'A scope of the API --api adds (repeatable).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup docker" undo' -l 'undo' -d 'Remove what this setup wrote.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup docker" dry-run' -l 'dry-run' -d 'Print what would be written or run; change nothing.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup docker" version' -l 'version' -d 'Show the version.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup docker" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup cargo" profile' -l 'profile' -d 'Profile to use.' -rfka '(__strivacity_custom_completion ---completion setup cargo -- --profile (count (__strivacity_tokens -pc)) (__strivacity_tokens -tC))'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup cargo" store' -l 'store' -d 'Where tokens are kept: the Secret Service keyring, or a 0600 file.' -rfka 'secret-service file'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup cargo" config' -l 'config' -d 'Config file (default: $XDG_CONFIG_HOME/strivacity/config.toml).' -rF
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup cargo" v verbose' -l 'verbose' -s 'v' -d 'Describe each step on stderr (secrets are redacted).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup cargo" registry' -l 'registry' -d 'The registry\'s name in cargo\'s config ([registries.NAME]).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup cargo" add-host' -l 'add-host' -d 'Add the registry\'s index URL to the profile\'s hosts.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup cargo" api' -l 'api' -d 'The profile\'s API whose token it gets (added with url = the host if missing).' -rfka '(__strivacity_custom_completion ---completion setup cargo -- --api (count (__strivacity_tokens -pc)) (__strivacity_tokens -tC))'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup cargo" audience' -l 'audience' -d 'The audience of the API --api adds.' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup cargo"' -l 'scope' -d 'A scope of the API --api adds (repeatable).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup cargo" undo' -l 'undo' -d 'Remove what this setup wrote.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup cargo" dry-run' -l 'dry-run' -d 'Print what would be written or run; change nothing.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup cargo" version' -l 'version' -d 'Show the version.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup cargo" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup terraform" profile' -l 'profile' -d 'Profile to use.' -rfka '(__strivacity_custom_completion ---completion setup terraform -- --profile (count (__strivacity_tokens -pc)) (__strivacity_tokens -tC))'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup terraform" store' -l 'store' -d 'Where tokens are kept: the Secret Service keyring, or a 0600 file.' -rfka 'secret-service file'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup terraform" config' -l 'config' -d 'Config file (default: $XDG_CONFIG_HOME/strivacity/config.toml).' -rF
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup terraform" v verbose' -l 'verbose' -s 'v' -d 'Describe each step on stderr (secrets are redacted).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup terraform" api' -l 'api' -d 'The profile\'s API whose token it gets (added with url = the host if missing).' -rfka '(__strivacity_custom_completion ---completion setup terraform -- --api (count (__strivacity_tokens -pc)) (__strivacity_tokens -tC))'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup terraform" audience' -l 'audience' -d 'The audience of the API --api adds.' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup terraform"' -l 'scope' -d 'A scope of the API --api adds (repeatable).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup terraform" undo' -l 'undo' -d 'Remove what this setup wrote.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup terraform" dry-run' -l 'dry-run' -d 'Print what would be written or run; change nothing.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup terraform" version' -l 'version' -d 'Show the version.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup terraform" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup kubectl" profile' -l 'profile' -d 'Profile to use.' -rfka '(__strivacity_custom_completion ---completion setup kubectl -- --profile (count (__strivacity_tokens -pc)) (__strivacity_tokens -tC))'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup kubectl" store' -l 'store' -d 'Where tokens are kept: the Secret Service keyring, or a 0600 file.' -rfka 'secret-service file'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup kubectl" config' -l 'config' -d 'Config file (default: $XDG_CONFIG_HOME/strivacity/config.toml).' -rF
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup kubectl" v verbose' -l 'verbose' -s 'v' -d 'Describe each step on stderr (secrets are redacted).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup kubectl" user' -l 'user' -d 'The kubeconfig user to write (default: strivacity-PROFILE).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup kubectl" kubeconfig' -l 'kubeconfig' -d 'The kubeconfig file (default: kubectl\'s own: $KUBECONFIG, else ~/.kube/config).' -rF
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup kubectl" context' -l 'context' -d 'The kubeconfig context whose API server gets the token (default: kubectl\'s current context).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup kubectl" undo' -l 'undo' -d 'Remove what this setup wrote.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup kubectl" dry-run' -l 'dry-run' -d 'Print what would be written or run; change nothing.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup kubectl" api' -l 'api' -d 'Give kubectl the token of this API of the profile (its audience).' -rfka '(__strivacity_custom_completion ---completion setup kubectl -- --api (count (__strivacity_tokens -pc)) (__strivacity_tokens -tC))'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup kubectl" version' -l 'version' -d 'Show the version.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup kubectl" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup gcloud" profile' -l 'profile' -d 'Profile to use.' -rfka '(__strivacity_custom_completion ---completion setup gcloud -- --profile (count (__strivacity_tokens -pc)) (__strivacity_tokens -tC))'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup gcloud" store' -l 'store' -d 'Where tokens are kept: the Secret Service keyring, or a 0600 file.' -rfka 'secret-service file'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup gcloud" config' -l 'config' -d 'Config file (default: $XDG_CONFIG_HOME/strivacity/config.toml).' -rF
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup gcloud" v verbose' -l 'verbose' -s 'v' -d 'Describe each step on stderr (secrets are redacted).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup gcloud" audience' -l 'audience' -d 'The identity pool provider (//iam.googleapis.com/projects/N/…/providers/ID).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup gcloud" api' -l 'api' -d 'The profile\'s API whose token is the subject token.' -rfka '(__strivacity_custom_completion ---completion setup gcloud -- --api (count (__strivacity_tokens -pc)) (__strivacity_tokens -tC))'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup gcloud" output' -l 'output' -d 'The configuration file to write.' -rF
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup gcloud" token-url' -l 'token-url' -d 'Google\'s Security Token Service.' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup gcloud" service-account-impersonation-url' -l 'service-account-impersonation-url' -d 'generateAccessToken of a service account to act as.' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup gcloud" force' -l 'force' -d 'Replace FILE even when it is not a configuration strivacity wrote.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup gcloud" undo' -l 'undo' -d 'Remove what this setup wrote.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup gcloud" dry-run' -l 'dry-run' -d 'Print what would be written or run; change nothing.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup gcloud" version' -l 'version' -d 'Show the version.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup gcloud" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup aws" profile' -l 'profile' -d 'Profile to use.' -rfka '(__strivacity_custom_completion ---completion setup aws -- --profile (count (__strivacity_tokens -pc)) (__strivacity_tokens -tC))'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup aws" store' -l 'store' -d 'Where tokens are kept: the Secret Service keyring, or a 0600 file.' -rfka 'secret-service file'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup aws" config' -l 'config' -d 'Config file (default: $XDG_CONFIG_HOME/strivacity/config.toml).' -rF
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup aws" v verbose' -l 'verbose' -s 'v' -d 'Describe each step on stderr (secrets are redacted).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup aws" api' -l 'api' -d 'The profile\'s API whose token it gets (added with url = the host if missing).' -rfka '(__strivacity_custom_completion ---completion setup aws -- --api (count (__strivacity_tokens -pc)) (__strivacity_tokens -tC))'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup aws" audience' -l 'audience' -d 'The audience of the API --api adds.' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup aws"' -l 'scope' -d 'A scope of the API --api adds (repeatable).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup aws" role-arn' -l 'role-arn' -d 'The role to assume (arn:aws:iam::ACCOUNT:role/NAME).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup aws" session-name' -l 'session-name' -d 'Its session name (default: strivacity-PROFILE).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup aws" aws-profile' -l 'aws-profile' -d 'The AWS profile (default: the strivacity profile\'s name).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup aws" undo' -l 'undo' -d 'Remove what this setup wrote.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup aws" dry-run' -l 'dry-run' -d 'Print what would be written or run; change nothing.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup aws" version' -l 'version' -d 'Show the version.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup aws" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup api" profile' -l 'profile' -d 'Profile to use.' -rfka '(__strivacity_custom_completion ---completion setup api -- --profile (count (__strivacity_tokens -pc)) (__strivacity_tokens -tC))'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup api" store' -l 'store' -d 'Where tokens are kept: the Secret Service keyring, or a 0600 file.' -rfka 'secret-service file'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup api" config' -l 'config' -d 'Config file (default: $XDG_CONFIG_HOME/strivacity/config.toml).' -rF
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup api" v verbose' -l 'verbose' -s 'v' -d 'Describe each step on stderr (secrets are redacted).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup api" name' -l 'name' -d 'The API\'s name in the config (default: from the metadata).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup api"' -l 'scope' -d 'A scope its tokens carry (repeatable; default: the metadata\'s).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup api" undo' -l 'undo' -d 'Remove what this setup wrote.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup api" dry-run' -l 'dry-run' -d 'Print what would be written or run; change nothing.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup api" version' -l 'version' -d 'Show the version.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup api" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup proxy" profile' -l 'profile' -d 'Profile to use.' -rfka '(__strivacity_custom_completion ---completion setup proxy -- --profile (count (__strivacity_tokens -pc)) (__strivacity_tokens -tC))'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup proxy" store' -l 'store' -d 'Where tokens are kept: the Secret Service keyring, or a 0600 file.' -rfka 'secret-service file'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup proxy" config' -l 'config' -d 'Config file (default: $XDG_CONFIG_HOME/strivacity/config.toml).' -rF
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup proxy" v verbose' -l 'verbose' -s 'v' -d 'Describe each step on stderr (secrets are redacted).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup proxy" proxy' -l 'proxy' -d 'The proxy\'s URL ("" for a direct connection).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup proxy" user' -l 'user' -d 'The user the proxy is told (proxy_user).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup proxy" auth' -l 'auth' -d 'basic (the default) or any (Negotiate, NTLM… as libcurl has them).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup proxy" password-stdin' -l 'password-stdin' -d 'Read the proxy user\'s password from stdin, check it, keep it.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup proxy" undo' -l 'undo' -d 'Remove what this setup wrote.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup proxy" dry-run' -l 'dry-run' -d 'Print what would be written or run; change nothing.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup proxy" version' -l 'version' -d 'Show the version.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity setup proxy" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity credential" profile' -l 'profile' -d 'Profile to use.' -rfka '(__strivacity_custom_completion ---completion credential -- --profile (count (__strivacity_tokens -pc)) (__strivacity_tokens -tC))'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity credential" store' -l 'store' -d 'Where tokens are kept: the Secret Service keyring, or a 0600 file.' -rfka 'secret-service file'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity credential" config' -l 'config' -d 'Config file (default: $XDG_CONFIG_HOME/strivacity/config.toml).' -rF
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity credential" v verbose' -l 'verbose' -s 'v' -d 'Describe each step on stderr (secrets are redacted).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity credential" -eq 1' -fka 'get store erase'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity credential" version' -l 'version' -d 'Show the version.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity credential" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity docker-credential" -ge 1' -fka 'get store erase list'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity docker-credential" version' -l 'version' -d 'Show the version.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity docker-credential" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity cargo-credential" profile' -l 'profile' -d 'Profile to use.' -rfka '(__strivacity_custom_completion ---completion cargo-credential -- --profile (count (__strivacity_tokens -pc)) (__strivacity_tokens -tC))'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity cargo-credential" store' -l 'store' -d 'Where tokens are kept: the Secret Service keyring, or a 0600 file.' -rfka 'secret-service file'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity cargo-credential" config' -l 'config' -d 'Config file (default: $XDG_CONFIG_HOME/strivacity/config.toml).' -rF
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity cargo-credential" v verbose' -l 'verbose' -s 'v' -d 'Describe each step on stderr (secrets are redacted).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity cargo-credential" version' -l 'version' -d 'Show the version.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity cargo-credential" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_positional "strivacity terraform-credential" -ge 1' -fka 'get store forget'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity terraform-credential" version' -l 'version' -d 'Show the version.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity terraform-credential" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity aws-credential-process" profile' -l 'profile' -d 'Profile to use.' -rfka '(__strivacity_custom_completion ---completion aws-credential-process -- --profile (count (__strivacity_tokens -pc)) (__strivacity_tokens -tC))'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity aws-credential-process" store' -l 'store' -d 'Where tokens are kept: the Secret Service keyring, or a 0600 file.' -rfka 'secret-service file'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity aws-credential-process" config' -l 'config' -d 'Config file (default: $XDG_CONFIG_HOME/strivacity/config.toml).' -rF
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity aws-credential-process" v verbose' -l 'verbose' -s 'v' -d 'Describe each step on stderr (secrets are redacted).'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity aws-credential-process" api' -l 'api' -d 'The API whose token is exchanged (its table names aws_role_arn).' -rfka ''
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity aws-credential-process" version' -l 'version' -d 'Show the version.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity aws-credential-process" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'strivacity' -n '__strivacity_should_offer_completions_for_flags_or_options "strivacity help" version' -l 'version' -d 'Show the version.'
