#include "views/search_bar.h"

#include <QCheckBox>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>

#include <mutex>
#include <regex>

namespace strata::views {

namespace {

std::mutex g_resultMutex;  // guards SearchBar::m_pendingResult between worker and GUI

} // namespace

SearchBar::SearchBar(storage::StoreReader& store, QWidget* parent)
    : QWidget(parent)
    , m_store(store)
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

SearchBar::~SearchBar()
{
    if (m_worker.joinable())
        m_worker.join();
}

void SearchBar::focusSearch()
{
    m_edit->setFocus();
    m_edit->selectAll();
}

void SearchBar::start()
{
    m_edit->setModified(false);
    if (m_worker.joinable())
        m_worker.join();
    const int generation = ++m_generation;
    storage::SearchRequest request;
    request.pattern = m_edit->text().toStdString();
    request.regex = m_regex->isChecked();
    m_result.reset();
    m_current = -1;
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
    m_worker = std::thread([this, request, generation] {
        auto result = std::make_shared<storage::SearchResult>(storage::searchIntervals(m_store, request));
        {
            std::lock_guard lock(g_resultMutex);
            m_pendingResult = std::move(result);
        }
        QMetaObject::invokeMethod(this, "deliver", Qt::QueuedConnection, Q_ARG(int, generation));
    });
}

void SearchBar::deliver(int generation)
{
    std::lock_guard lock(g_resultMutex);
    if (generation != m_generation || !m_pendingResult)
        return;
    m_result = std::move(m_pendingResult);
    m_status->setText(m_result->count == 1 ? tr("1 match") : tr("%1 matches").arg(m_result->count));
}

void SearchBar::searchAndWait(const QString& pattern, bool regex)
{
    m_regex->blockSignals(true);
    m_regex->setChecked(regex);
    m_regex->blockSignals(false);
    m_edit->setText(pattern);
    start();
    if (m_worker.joinable())
        m_worker.join();
    deliver(m_generation);
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
