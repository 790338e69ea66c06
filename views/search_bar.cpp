#include "views/search_bar.h"

#include <QCheckBox>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>

#include <regex>

namespace strata::views {

SearchBar::SearchBar(storage::StoreReader& store, QWidget* parent)
    : QWidget(parent)
    , m_store(store)
    , m_runner(std::make_unique<LatestJobRunner>(this))
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_edit = new QLineEdit(this);
    m_edit->setPlaceholderText(tr("Find events by name (Ctrl+F)"));
    m_edit->setClearButtonEnabled(true);
    m_regex = new QCheckBox(tr("Regex"), this);
    auto* prev = new QToolButton(this);
    prev->setArrowType(Qt::UpArrow);
    prev->setToolTip(tr("Previous match (Shift+Enter)"));
    auto* nextButton = new QToolButton(this);
    nextButton->setArrowType(Qt::DownArrow);
    nextButton->setToolTip(tr("Next match (Enter)"));
    m_status = new QLabel(this);
    m_status->setMinimumWidth(110);
    layout->addWidget(m_edit, 1);
    layout->addWidget(m_regex);
    layout->addWidget(prev);
    layout->addWidget(nextButton);
    layout->addWidget(m_status);
    connect(m_edit, &QLineEdit::returnPressed, this, [this] {
        if (m_result && !m_edit->isModified())
            (QGuiApplication::keyboardModifiers() & Qt::ShiftModifier) ? previous() : next();
        else
            start();
    });
    connect(m_regex, &QCheckBox::toggled, this, &SearchBar::start);
    connect(prev, &QToolButton::clicked, this, &SearchBar::previous);
    connect(nextButton, &QToolButton::clicked, this, &SearchBar::next);
}

SearchBar::~SearchBar() = default;

void SearchBar::focusSearch()
{
    m_edit->setFocus();
    m_edit->selectAll();
}

void SearchBar::start()
{
    m_edit->setModified(false);
    storage::SearchRequest request;
    request.pattern = m_edit->text().toStdString();
    request.regex = m_regex->isChecked();
    m_result.reset();
    m_current = -1;
    // Supersede a search still running: its answer is for the old pattern.
    m_runner->submit([] { return LatestJobRunner::Continuation(); });
    try {
        emit matchesChanged(storage::matchingNames(m_store.strings(), request));
    } catch (const std::regex_error& e) {
        m_status->setText(tr("bad regex"));
        m_status->setToolTip(QString::fromUtf8(e.what()));
        emit matchesChanged({});
        return;
    }
    m_status->setText(request.pattern.empty() ? QString() : tr("searching…"));
    if (request.pattern.empty())
        return;
    m_runner->submit([this, request]() -> LatestJobRunner::Continuation {
        auto result = std::make_shared<const storage::SearchResult>(storage::searchIntervals(m_store, request));
        return [this, result] {
            m_result = result;
            m_status->setText(result->count == 1 ? tr("1 match") : tr("%1 matches").arg(result->count));
        };
    });
}

void SearchBar::searchAndWait(const QString& pattern, bool regex)
{
    m_regex->blockSignals(true);
    m_regex->setChecked(regex);
    m_regex->blockSignals(false);
    m_edit->setText(pattern);
    start();
    m_runner->waitUntilIdle();
}

void SearchBar::jump(int index)
{
    if (!m_result || m_result->matches.empty())
        return;
    const int n = static_cast<int>(m_result->matches.size());
    m_current = ((index % n) + n) % n;
    m_status->setText(tr("%1 of %2").arg(m_current + 1).arg(m_result->count));
    const storage::SearchMatch& match = m_result->matches[static_cast<std::size_t>(m_current)];
    emit showMatch(PickedInterval{match.track, match.interval});
}

void SearchBar::next()
{
    jump(m_current + 1);
}

void SearchBar::previous()
{
    jump(m_current < 0 ? -1 : m_current - 1);
}

} // namespace strata::views
