#!/bin/bash

__strivacity_cursor_index_in_current_word() {
    local remaining="${COMP_LINE}"

    local word
    for word in "${COMP_WORDS[@]::COMP_CWORD}"; do
        remaining="${remaining##*([[:space:]])"${word}"*([[:space:]])}"
    done

    local -ir index="$((COMP_POINT - ${#COMP_LINE} + ${#remaining}))"
    if [[ "${index}" -le 0 ]]; then
        printf 0
    else
        printf %s "${index}"
    fi
}

# positional arguments:
#
# - 1: the current (sub)command's count of positional arguments
#
# required variables:
#
# - repeating_flags: the repeating flags that the current (sub)command can accept
# - non_repeating_flags: the non-repeating flags that the current (sub)command can accept
# - repeating_options: the repeating options that the current (sub)command can accept
# - non_repeating_options: the non-repeating options that the current (sub)command can accept
# - positional_number: value ignored
# - unparsed_words: unparsed words from the current command line
#
# modified variables:
#
# - non_repeating_flags: remove flags for this (sub)command that are already on the command line
# - non_repeating_options: remove options for this (sub)command that are already on the command line
# - positional_number: set to the current positional number
# - unparsed_words: remove all flags, options, and option values for this (sub)command
__strivacity_offer_flags_options() {
    local -ir positional_count="${1}"
    positional_number=0

    local was_flag_option_terminator_seen=false
    local is_parsing_option_value=false

    local -ar unparsed_word_indices=("${!unparsed_words[@]}")
    local -i word_index
    for word_index in "${unparsed_word_indices[@]}"; do
        if "${is_parsing_option_value}"; then
            # This word is an option value:
            # Reset marker for next word iff not currently the last word
            [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]] && is_parsing_option_value=false
            unset "unparsed_words[${word_index}]"
            # Do not process this word as a flag or an option
            continue
        fi

        local word="${unparsed_words["${word_index}"]}"
        if ! "${was_flag_option_terminator_seen}"; then
            case "${word}" in
            --)
                unset "unparsed_words[${word_index}]"
                # by itself -- is a flag/option terminator, but if it is the last word, it is the start of a completion
                if [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]]; then
                    was_flag_option_terminator_seen=true
                fi
                continue
                ;;
            -*)
                # ${word} is a flag or an option
                # If ${word} is an option, mark that the next word to be parsed is an option value
                local option
                for option in "${repeating_options[@]}" "${non_repeating_options[@]}"; do
                    [[ "${word}" = "${option}" ]] && is_parsing_option_value=true && break
                done

                # Remove ${word} from ${non_repeating_flags} or ${non_repeating_options} so it isn't offered again
                local not_found=true
                local -i index
                for index in "${!non_repeating_flags[@]}"; do
                    if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                        unset "non_repeating_flags[${index}]"
                        non_repeating_flags=("${non_repeating_flags[@]}")
                        not_found=false
                        break
                    fi
                done
                if "${not_found}"; then
                    for index in "${!non_repeating_flags[@]}"; do
                        if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                            unset "non_repeating_flags[${index}]"
                            non_repeating_flags=("${non_repeating_flags[@]}")
                            break
                        fi
                    done
                fi
                unset "unparsed_words[${word_index}]"
                continue
                ;;
            esac
        fi

        # ${word} is neither a flag, nor an option, nor an option value
        if [[ "${positional_number}" -lt "${positional_count}" || "${positional_count}" -lt 0 ]]; then
            # ${word} is a positional
            ((positional_number++))
            unset "unparsed_words[${word_index}]"
        else
            if [[ -z "${word}" ]]; then
                # Could be completing a flag, option, or subcommand
                positional_number=-1
            else
                # ${word} is a subcommand or invalid, so stop processing this (sub)command
                positional_number=-2
            fi
            break
        fi
    done

    unparsed_words=("${unparsed_words[@]}")

    if\
        ! "${was_flag_option_terminator_seen}"\
        && ! "${is_parsing_option_value}"\
        && [[ ("${cur}" = -* && "${positional_number}" -ge 0) || "${positional_number}" -eq -1 ]]
    then
        COMPREPLY+=($(compgen -W "${repeating_flags[*]} ${non_repeating_flags[*]} ${repeating_options[*]} ${non_repeating_options[*]}" -- "${cur}"))
    fi
}

__strivacity_add_completions() {
    local completion
    while IFS='' read -r completion; do
        COMPREPLY+=("${completion}")
    done < <(IFS=$'\n' compgen "${@}" -- "${cur}")
}

__strivacity_custom_complete() {
    if [[ -n "${cur}" || -z ${COMP_WORDS[${COMP_CWORD}]} || "${COMP_LINE:${COMP_POINT}:1}" != ' ' ]]; then
        local -ar words=("${COMP_WORDS[@]}")
    else
        local -ar words=("${COMP_WORDS[@]::${COMP_CWORD}}" '' "${COMP_WORDS[@]:${COMP_CWORD}}")
    fi

    "${COMP_WORDS[0]}" "${@}" "${words[@]}"
}

_strivacity() {
    local state
    state="$(shopt -p;shopt -po)"
    trap "${state//$'\n'/;}" RETURN
    shopt -s extglob
    set +o history +o posix

    local -xr SAP_SHELL=bash
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(IFS='.';printf %s "${BASH_VERSINFO[*]}")"
    local -r SAP_SHELL_VERSION

    local -r cur="${2}"
    local -r prev="${3}"

    local -i positional_number
    local -a unparsed_words=("${COMP_WORDS[@]:1:${COMP_CWORD}}")

    local -a repeating_flags=()
    local -a non_repeating_flags=(--version -h --help)
    local -a repeating_options=()
    local -a non_repeating_options=()
    __strivacity_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    login|token|status|doctor|userinfo|logout|revoke|curl|exec|agent|use|setup|credential|docker-credential|cargo-credential|terraform-credential|aws-credential-process|help)
        # Offer subcommand argument completions
        "_strivacity_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'login token status doctor userinfo logout revoke curl exec agent use setup credential docker-credential cargo-credential terraform-credential aws-credential-process help' -- "${cur}"))
        ;;
    esac
}

_strivacity_login() {
    repeating_flags=()
    non_repeating_flags=(--verbose -v --browser --no-browser --client-secret-stdin --version -h --help)
    repeating_options=(--add-scope --resource --field --field-env --action)
    non_repeating_options=(--profile --store --config --tenant --client-id --scope --redirect-uri --sdk-mode --login-hint --prompt --acr-values --max-age --audience --ui-locales --timeout)
    __strivacity_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __strivacity_add_completions -W "$(__strivacity_custom_complete ---completion login -- --profile "${COMP_CWORD}" "$(__strivacity_cursor_index_in_current_word)")"
        return
        ;;
    '--store')
        __strivacity_add_completions -W 'secret-service'$'\n''file'
        return
        ;;
    '--config')
        __strivacity_add_completions -f
        return
        ;;
    '--tenant')
        return
        ;;
    '--client-id')
        return
        ;;
    '--scope')
        return
        ;;
    '--redirect-uri')
        return
        ;;
    '--sdk-mode')
        __strivacity_add_completions -W 'web'$'\n''web-minimal'$'\n''ios'$'\n''ios-minimal'$'\n''android'$'\n''android-minimal'
        return
        ;;
    '--login-hint')
        return
        ;;
    '--prompt')
        __strivacity_add_completions -W 'none'$'\n''login'$'\n''create'
        return
        ;;
    '--acr-values')
        return
        ;;
    '--max-age')
        return
        ;;
    '--add-scope')
        return
        ;;
    '--resource')
        return
        ;;
    '--audience')
        return
        ;;
    '--ui-locales')
        return
        ;;
    '--field')
        return
        ;;
    '--field-env')
        return
        ;;
    '--action')
        return
        ;;
    '--timeout')
        return
        ;;
    esac
}

_strivacity_token() {
    repeating_flags=()
    non_repeating_flags=(--verbose -v --refresh --id-token --login --version -h --help)
    repeating_options=(--resource --scope)
    non_repeating_options=(--profile --store --config --min-ttl --format --api --for --audience)
    __strivacity_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __strivacity_add_completions -W "$(__strivacity_custom_complete ---completion token -- --profile "${COMP_CWORD}" "$(__strivacity_cursor_index_in_current_word)")"
        return
        ;;
    '--store')
        __strivacity_add_completions -W 'secret-service'$'\n''file'
        return
        ;;
    '--config')
        __strivacity_add_completions -f
        return
        ;;
    '--min-ttl')
        return
        ;;
    '--format')
        __strivacity_add_completions -W 'raw'$'\n''header'$'\n''json'$'\n''env'$'\n''curl'$'\n''exec-credential'$'\n''google-executable'
        return
        ;;
    '--api')
        __strivacity_add_completions -W "$(__strivacity_custom_complete ---completion token -- --api "${COMP_CWORD}" "$(__strivacity_cursor_index_in_current_word)")"
        return
        ;;
    '--for')
        return
        ;;
    '--audience')
        return
        ;;
    '--resource')
        return
        ;;
    '--scope')
        return
        ;;
    esac
}

_strivacity_status() {
    repeating_flags=()
    non_repeating_flags=(--verbose -v --all --json --jwk --jwks --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --store --config)
    __strivacity_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __strivacity_add_completions -W "$(__strivacity_custom_complete ---completion status -- --profile "${COMP_CWORD}" "$(__strivacity_cursor_index_in_current_word)")"
        return
        ;;
    '--store')
        __strivacity_add_completions -W 'secret-service'$'\n''file'
        return
        ;;
    '--config')
        __strivacity_add_completions -f
        return
        ;;
    esac
}

_strivacity_doctor() {
    repeating_flags=()
    non_repeating_flags=(--verbose -v --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --store --config --format)
    __strivacity_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __strivacity_add_completions -W "$(__strivacity_custom_complete ---completion doctor -- --profile "${COMP_CWORD}" "$(__strivacity_cursor_index_in_current_word)")"
        return
        ;;
    '--store')
        __strivacity_add_completions -W 'secret-service'$'\n''file'
        return
        ;;
    '--config')
        __strivacity_add_completions -f
        return
        ;;
    '--format')
        __strivacity_add_completions -W 'text'$'\n''json'
        return
        ;;
    esac
}

_strivacity_userinfo() {
    repeating_flags=()
    non_repeating_flags=(--verbose -v --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --store --config)
    __strivacity_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __strivacity_add_completions -W "$(__strivacity_custom_complete ---completion userinfo -- --profile "${COMP_CWORD}" "$(__strivacity_cursor_index_in_current_word)")"
        return
        ;;
    '--store')
        __strivacity_add_completions -W 'secret-service'$'\n''file'
        return
        ;;
    '--config')
        __strivacity_add_completions -f
        return
        ;;
    esac
}

_strivacity_logout() {
    repeating_flags=()
    non_repeating_flags=(--verbose -v --all --local --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --store --config)
    __strivacity_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __strivacity_add_completions -W "$(__strivacity_custom_complete ---completion logout -- --profile "${COMP_CWORD}" "$(__strivacity_cursor_index_in_current_word)")"
        return
        ;;
    '--store')
        __strivacity_add_completions -W 'secret-service'$'\n''file'
        return
        ;;
    '--config')
        __strivacity_add_completions -f
        return
        ;;
    esac
}

_strivacity_revoke() {
    repeating_flags=()
    non_repeating_flags=(--verbose -v --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --store --config)
    __strivacity_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __strivacity_add_completions -W "$(__strivacity_custom_complete ---completion revoke -- --profile "${COMP_CWORD}" "$(__strivacity_cursor_index_in_current_word)")"
        return
        ;;
    '--store')
        __strivacity_add_completions -W 'secret-service'$'\n''file'
        return
        ;;
    '--config')
        __strivacity_add_completions -f
        return
        ;;
    esac
}

_strivacity_curl() {
    repeating_flags=()
    non_repeating_flags=(--verbose -v --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --store --config)
    __strivacity_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __strivacity_add_completions -W "$(__strivacity_custom_complete ---completion curl -- --profile "${COMP_CWORD}" "$(__strivacity_cursor_index_in_current_word)")"
        return
        ;;
    '--store')
        __strivacity_add_completions -W 'secret-service'$'\n''file'
        return
        ;;
    '--config')
        __strivacity_add_completions -f
        return
        ;;
    esac
}

_strivacity_exec() {
    repeating_flags=()
    non_repeating_flags=(--verbose -v --fail-on-expiry --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --store --config --api --env --file-env --dir)
    __strivacity_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __strivacity_add_completions -W "$(__strivacity_custom_complete ---completion exec -- --profile "${COMP_CWORD}" "$(__strivacity_cursor_index_in_current_word)")"
        return
        ;;
    '--store')
        __strivacity_add_completions -W 'secret-service'$'\n''file'
        return
        ;;
    '--config')
        __strivacity_add_completions -f
        return
        ;;
    '--api')
        __strivacity_add_completions -W "$(__strivacity_custom_complete ---completion exec -- --api "${COMP_CWORD}" "$(__strivacity_cursor_index_in_current_word)")"
        return
        ;;
    '--env')
        return
        ;;
    '--file-env')
        return
        ;;
    '--dir')
        __strivacity_add_completions -d
        return
        ;;
    esac
}

_strivacity_agent() {
    repeating_flags=()
    non_repeating_flags=(--verbose -v --version -h --help)
    repeating_options=()
    non_repeating_options=(--idle-timeout)
    __strivacity_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--idle-timeout')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __strivacity_add_completions -W 'start'$'\n''stop'$'\n''status'
        return
        ;;
    esac
}

_strivacity_use() {
    repeating_flags=()
    non_repeating_flags=(--here --version -h --help)
    repeating_options=()
    non_repeating_options=(--config)
    __strivacity_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--config')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __strivacity_add_completions -W "$(__strivacity_custom_complete ---completion use -- positional@0 "${COMP_CWORD}" "$(__strivacity_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_strivacity_setup() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __strivacity_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    git|docker|cargo|terraform|kubectl|gcloud|aws|api|proxy)
        # Offer subcommand argument completions
        "_strivacity_setup_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'git docker cargo terraform kubectl gcloud aws api proxy' -- "${cur}"))
        ;;
    esac
}

_strivacity_setup_git() {
    repeating_flags=()
    non_repeating_flags=(--verbose -v --global --local --undo --dry-run --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --store --config --host)
    __strivacity_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __strivacity_add_completions -W "$(__strivacity_custom_complete ---completion setup git -- --profile "${COMP_CWORD}" "$(__strivacity_cursor_index_in_current_word)")"
        return
        ;;
    '--store')
        __strivacity_add_completions -W 'secret-service'$'\n''file'
        return
        ;;
    '--config')
        __strivacity_add_completions -f
        return
        ;;
    '--host')
        return
        ;;
    esac
}

_strivacity_setup_docker() {
    repeating_flags=()
    non_repeating_flags=(--verbose -v --undo --dry-run --version -h --help)
    repeating_options=(--scope)
    non_repeating_options=(--profile --store --config --registry --api --audience)
    __strivacity_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __strivacity_add_completions -W "$(__strivacity_custom_complete ---completion setup docker -- --profile "${COMP_CWORD}" "$(__strivacity_cursor_index_in_current_word)")"
        return
        ;;
    '--store')
        __strivacity_add_completions -W 'secret-service'$'\n''file'
        return
        ;;
    '--config')
        __strivacity_add_completions -f
        return
        ;;
    '--registry')
        return
        ;;
    '--api')
        __strivacity_add_completions -W "$(__strivacity_custom_complete ---completion setup docker -- --api "${COMP_CWORD}" "$(__strivacity_cursor_index_in_current_word)")"
        return
        ;;
    '--audience')
        return
        ;;
    '--scope')
        return
        ;;
    esac
}

_strivacity_setup_cargo() {
    repeating_flags=()
    non_repeating_flags=(--verbose -v --add-host --undo --dry-run --version -h --help)
    repeating_options=(--scope)
    non_repeating_options=(--profile --store --config --registry --api --audience)
    __strivacity_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __strivacity_add_completions -W "$(__strivacity_custom_complete ---completion setup cargo -- --profile "${COMP_CWORD}" "$(__strivacity_cursor_index_in_current_word)")"
        return
        ;;
    '--store')
        __strivacity_add_completions -W 'secret-service'$'\n''file'
        return
        ;;
    '--config')
        __strivacity_add_completions -f
        return
        ;;
    '--registry')
        return
        ;;
    '--api')
        __strivacity_add_completions -W "$(__strivacity_custom_complete ---completion setup cargo -- --api "${COMP_CWORD}" "$(__strivacity_cursor_index_in_current_word)")"
        return
        ;;
    '--audience')
        return
        ;;
    '--scope')
        return
        ;;
    esac
}

_strivacity_setup_terraform() {
    repeating_flags=()
    non_repeating_flags=(--verbose -v --undo --dry-run --version -h --help)
    repeating_options=(--scope)
    non_repeating_options=(--profile --store --config --api --audience)
    __strivacity_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __strivacity_add_completions -W "$(__strivacity_custom_complete ---completion setup terraform -- --profile "${COMP_CWORD}" "$(__strivacity_cursor_index_in_current_word)")"
        return
        ;;
    '--store')
        __strivacity_add_completions -W 'secret-service'$'\n''file'
        return
        ;;
    '--config')
        __strivacity_add_completions -f
        return
        ;;
    '--api')
        __strivacity_add_completions -W "$(__strivacity_custom_complete ---completion setup terraform -- --api "${COMP_CWORD}" "$(__strivacity_cursor_index_in_current_word)")"
        return
        ;;
    '--audience')
        return
        ;;
    '--scope')
        return
        ;;
    esac
}

_strivacity_setup_kubectl() {
    repeating_flags=()
    non_repeating_flags=(--verbose -v --undo --dry-run --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --store --config --user --kubeconfig --context --api)
    __strivacity_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __strivacity_add_completions -W "$(__strivacity_custom_complete ---completion setup kubectl -- --profile "${COMP_CWORD}" "$(__strivacity_cursor_index_in_current_word)")"
        return
        ;;
    '--store')
        __strivacity_add_completions -W 'secret-service'$'\n''file'
        return
        ;;
    '--config')
        __strivacity_add_completions -f
        return
        ;;
    '--user')
        return
        ;;
    '--kubeconfig')
        __strivacity_add_completions -f
        return
        ;;
    '--context')
        return
        ;;
    '--api')
        __strivacity_add_completions -W "$(__strivacity_custom_complete ---completion setup kubectl -- --api "${COMP_CWORD}" "$(__strivacity_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_strivacity_setup_gcloud() {
    repeating_flags=()
    non_repeating_flags=(--verbose -v --force --undo --dry-run --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --store --config --audience --api --output --token-url --service-account-impersonation-url)
    __strivacity_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __strivacity_add_completions -W "$(__strivacity_custom_complete ---completion setup gcloud -- --profile "${COMP_CWORD}" "$(__strivacity_cursor_index_in_current_word)")"
        return
        ;;
    '--store')
        __strivacity_add_completions -W 'secret-service'$'\n''file'
        return
        ;;
    '--config')
        __strivacity_add_completions -f
        return
        ;;
    '--audience')
        return
        ;;
    '--api')
        __strivacity_add_completions -W "$(__strivacity_custom_complete ---completion setup gcloud -- --api "${COMP_CWORD}" "$(__strivacity_cursor_index_in_current_word)")"
        return
        ;;
    '--output')
        __strivacity_add_completions -f
        return
        ;;
    '--token-url')
        return
        ;;
    '--service-account-impersonation-url')
        return
        ;;
    esac
}

_strivacity_setup_aws() {
    repeating_flags=()
    non_repeating_flags=(--verbose -v --undo --dry-run --version -h --help)
    repeating_options=(--scope)
    non_repeating_options=(--profile --store --config --api --audience --role-arn --session-name --aws-profile)
    __strivacity_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __strivacity_add_completions -W "$(__strivacity_custom_complete ---completion setup aws -- --profile "${COMP_CWORD}" "$(__strivacity_cursor_index_in_current_word)")"
        return
        ;;
    '--store')
        __strivacity_add_completions -W 'secret-service'$'\n''file'
        return
        ;;
    '--config')
        __strivacity_add_completions -f
        return
        ;;
    '--api')
        __strivacity_add_completions -W "$(__strivacity_custom_complete ---completion setup aws -- --api "${COMP_CWORD}" "$(__strivacity_cursor_index_in_current_word)")"
        return
        ;;
    '--audience')
        return
        ;;
    '--scope')
        return
        ;;
    '--role-arn')
        return
        ;;
    '--session-name')
        return
        ;;
    '--aws-profile')
        return
        ;;
    esac
}

_strivacity_setup_api() {
    repeating_flags=()
    non_repeating_flags=(--verbose -v --undo --dry-run --version -h --help)
    repeating_options=(--scope)
    non_repeating_options=(--profile --store --config --name)
    __strivacity_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __strivacity_add_completions -W "$(__strivacity_custom_complete ---completion setup api -- --profile "${COMP_CWORD}" "$(__strivacity_cursor_index_in_current_word)")"
        return
        ;;
    '--store')
        __strivacity_add_completions -W 'secret-service'$'\n''file'
        return
        ;;
    '--config')
        __strivacity_add_completions -f
        return
        ;;
    '--name')
        return
        ;;
    '--scope')
        return
        ;;
    esac
}

_strivacity_setup_proxy() {
    repeating_flags=()
    non_repeating_flags=(--verbose -v --password-stdin --undo --dry-run --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --store --config --proxy --user --auth)
    __strivacity_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __strivacity_add_completions -W "$(__strivacity_custom_complete ---completion setup proxy -- --profile "${COMP_CWORD}" "$(__strivacity_cursor_index_in_current_word)")"
        return
        ;;
    '--store')
        __strivacity_add_completions -W 'secret-service'$'\n''file'
        return
        ;;
    '--config')
        __strivacity_add_completions -f
        return
        ;;
    '--proxy')
        return
        ;;
    '--user')
        return
        ;;
    '--auth')
        return
        ;;
    esac
}

_strivacity_credential() {
    repeating_flags=()
    non_repeating_flags=(--verbose -v --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --store --config)
    __strivacity_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __strivacity_add_completions -W "$(__strivacity_custom_complete ---completion credential -- --profile "${COMP_CWORD}" "$(__strivacity_cursor_index_in_current_word)")"
        return
        ;;
    '--store')
        __strivacity_add_completions -W 'secret-service'$'\n''file'
        return
        ;;
    '--config')
        __strivacity_add_completions -f
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __strivacity_add_completions -W 'get'$'\n''store'$'\n''erase'
        return
        ;;
    esac
}

_strivacity_docker-credential() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __strivacity_offer_flags_options -1

    # Offer positional completions
    case "${positional_number}" in
    *)
        __strivacity_add_completions -W 'get'$'\n''store'$'\n''erase'$'\n''list'
        return
        ;;
    esac
}

_strivacity_cargo-credential() {
    repeating_flags=()
    non_repeating_flags=(--verbose -v --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --store --config)
    __strivacity_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __strivacity_add_completions -W "$(__strivacity_custom_complete ---completion cargo-credential -- --profile "${COMP_CWORD}" "$(__strivacity_cursor_index_in_current_word)")"
        return
        ;;
    '--store')
        __strivacity_add_completions -W 'secret-service'$'\n''file'
        return
        ;;
    '--config')
        __strivacity_add_completions -f
        return
        ;;
    esac
}

_strivacity_terraform-credential() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __strivacity_offer_flags_options -1

    # Offer positional completions
    case "${positional_number}" in
    *)
        __strivacity_add_completions -W 'get'$'\n''store'$'\n''forget'
        return
        ;;
    esac
}

_strivacity_aws-credential-process() {
    repeating_flags=()
    non_repeating_flags=(--verbose -v --version -h --help)
    repeating_options=()
    non_repeating_options=(--profile --store --config --api)
    __strivacity_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--profile')
        __strivacity_add_completions -W "$(__strivacity_custom_complete ---completion aws-credential-process -- --profile "${COMP_CWORD}" "$(__strivacity_cursor_index_in_current_word)")"
        return
        ;;
    '--store')
        __strivacity_add_completions -W 'secret-service'$'\n''file'
        return
        ;;
    '--config')
        __strivacity_add_completions -f
        return
        ;;
    '--api')
        return
        ;;
    esac
}

_strivacity_help() {
    repeating_flags=()
    non_repeating_flags=(--version)
    repeating_options=()
    non_repeating_options=()
    __strivacity_offer_flags_options -1
}

complete -o filenames -F _strivacity strivacity
